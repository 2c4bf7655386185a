// Package plots draws the figures of the cvar experiment with gonum/plot,
// as PNG or SVG. [Curves] draws the training curves per epoch (the paper's
// Figure 2). It takes a [Panel] per metric, holding a [Curve] per method.
// [Tails] draws the sorted top-α losses (Figure 3), from each method's
// [Tail].
package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Curve is one method's values per epoch on the training and the
// validation data. Index 0 is epoch 1. NaN values are skipped.
type Curve struct {
	Method     string
	Train, Val []float64
}

// Panel is one metric's curves.
type Panel struct {
	Title  string // e.g. "CVaR_0.1"
	Curves []Curve
}

// Tail is one method's validation losses.
type Tail struct {
	Method string
	Losses []float64
}

// palette holds distinguishable colours (Okabe–Ito), one per method.
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
}

func colour(i int) color.Color { return palette[i%len(palette)] }

// Curves writes the panels side by side, with the legend on the right.
// Each method has one colour. Validation is solid and training dashed, as
// in the paper's Figure 2. format is "png" or "svg".
func Curves(w io.Writer, format, title string, panels []Panel) error {
	plots := make([]*plot.Plot, 0, len(panels))
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(10)
	legend.Padding = vg.Points(3)
	for pi, pn := range panels {
		p := newPlot(pn.Title, "epoch", "")
		for i, c := range pn.Curves {
			for _, part := range []struct {
				ys     []float64
				dashed bool
			}{{c.Val, false}, {c.Train, true}} {
				xys := points(part.ys, func(j int) float64 { return float64(j + 1) })
				if len(xys) == 0 {
					continue
				}
				l, err := plotter.NewLine(xys)
				if err != nil {
					return err
				}
				styleLine(l, colour(i), part.dashed)
				p.Add(l)
				if pi == 0 && !part.dashed {
					legend.Add(c.Method, l)
				}
			}
		}
		plots = append(plots, p)
	}
	for _, s := range []struct {
		name   string
		dashed bool
	}{{"validation", false}, {"training", true}} {
		l := &plotter.Line{}
		styleLine(l, color.Gray{Y: 60}, s.dashed)
		legend.Add(s.name, l)
	}
	return render(w, format, title, plots, vg.Points(300), &legend)
}

func styleLine(l *plotter.Line, c color.Color, dashed bool) {
	l.Color = c
	l.Width = vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		l.Width = vg.Points(1)
	}
}

// Tails writes one panel per α, as in the paper's Figure 3. A panel plots
// the top ⌈α·n⌉ validation losses of each method against their rank, in
// increasing order.
func Tails(w io.Writer, format, title string, alphas []float64, tails []Tail) error {
	plots := make([]*plot.Plot, 0, len(alphas))
	for _, a := range alphas {
		if !(a > 0 && a <= 1) {
			return fmt.Errorf("plots: alpha %v outside (0, 1]", a)
		}
		p := newPlot(fmt.Sprintf("top %g of validation losses (α = %g)", a, a), "rank in the tail (increasing loss)", "loss")
		for i, t := range tails {
			if len(t.Losses) == 0 {
				continue
			}
			sorted := slices.Clone(t.Losses)
			slices.Sort(sorted)
			k := max(int(math.Ceil(a*float64(len(sorted)))), 1)
			top := sorted[len(sorted)-k:]
			l, err := plotter.NewLine(points(top, func(j int) float64 { return float64(j + 1) }))
			if err != nil {
				return err
			}
			l.Color = colour(i)
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(t.Method, l)
		}
		p.Legend.Top = true
		p.Legend.Left = true
		p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(6)
		plots = append(plots, p)
	}
	return render(w, format, title, plots, vg.Points(360), nil)
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	return p
}

// points returns (x(j), ys[j]) for the finite ys.
func points(ys []float64, x func(int) float64) plotter.XYs {
	xys := make(plotter.XYs, 0, len(ys))
	for j, y := range ys {
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			xys = append(xys, plotter.XY{X: x(j), Y: y})
		}
	}
	return xys
}

// render lays the plots out in a row under a title and encodes them. The
// legend, if any, takes a strip on the right.
func render(w io.Writer, format, title string, plots []*plot.Plot, panelWidth vg.Length, legend *plot.Legend) error {
	if len(plots) == 0 {
		return fmt.Errorf("plots: nothing to draw")
	}
	legendW := vg.Length(0)
	if legend != nil {
		legendW = vg.Points(190) // fits "CVaR-on-Minibatch (α = 0.05)"
	}
	width, height := panelWidth*vg.Length(len(plots))+legendW, vg.Points(300)
	var canvas vg.CanvasWriterTo
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))}
	case "svg":
		canvas = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plots: unknown format %q (want png or svg)", format)
	}
	dc := draw.New(canvas)
	// White background, then the title on top and the panels below it.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	titleH := vg.Points(0)
	if title != "" {
		style := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, 13), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		titleH = vg.Points(20)
		dc.FillText(style, vg.Point{X: width / 2, Y: height - vg.Points(4)}, title)
	}
	body := draw.Crop(dc, 0, -legendW, 0, -titleH)
	if legend != nil {
		legend.Draw(draw.Crop(dc, width-legendW+vg.Points(8), 0, 0, -titleH-vg.Points(30)))
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(10), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	row := [][]*plot.Plot{plots}
	cs := plot.Align(row, tiles, body)
	for i, p := range plots {
		p.Draw(cs[0][i])
	}
	_, err := canvas.WriteTo(w)
	return err
}
