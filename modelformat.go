package cvar

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"strings"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// The model file format: SaveModel and LoadModel. The package documentation
// ("Model files") specifies it; keep the two in step.

const (
	modelMagic     = "CVARMODL"
	maxHeaderBytes = 64 << 20
)

// paramsJSON is Params as the header stores it.
type paramsJSON struct {
	Method     string          `json:"method"`
	Alpha      jsonfloat.Exact `json:"alpha"`
	N          int             `json:"n"`
	Steps      int             `json:"steps"`
	Batch      int             `json:"batch"`
	G          jsonfloat.Exact `json:"g"`
	Beta       jsonfloat.Exact `json:"beta"`
	L          jsonfloat.Exact `json:"loss_bound"`
	D          jsonfloat.Exact `json:"diameter"`
	GAlpha     jsonfloat.Exact `json:"g_alpha"`
	LR         jsonfloat.Exact `json:"lr"`
	Eps        jsonfloat.Exact `json:"eps"`
	TauMin     jsonfloat.Exact `json:"tau_min"`
	TauMax     jsonfloat.Exact `json:"tau_max"`
	Bound      jsonfloat.Exact `json:"bound"`
	Estimated  bool            `json:"estimated"`
	TheoremLR  bool            `json:"theorem_lr"`
	TheoremEps bool            `json:"theorem_eps"`
	// The objective, when not the method's own, and its parameter.
	Risk    string  `json:"risk,omitempty"`
	Blend   float64 `json:"blend,omitempty"`
	Trim    float64 `json:"trim,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
	GroupLR float64 `json:"group_lr,omitempty"`
	Groups  int     `json:"groups,omitempty"`
}

// header is the JSON header of a model file.
type header struct {
	Format        string                `json:"format"`
	Model         string                `json:"model"`
	D             int                   `json:"d"`
	K             int                   `json:"k"`
	Hidden        int                   `json:"hidden,omitempty"`
	Precision     string                `json:"precision"`
	NumParams     int                   `json:"num_params"`
	Tau           jsonfloat.Exact       `json:"tau"`
	Alpha         jsonfloat.Exact       `json:"alpha"`
	Method        string                `json:"method"`
	Classes       []headerText          `json:"classes,omitempty"`
	Features      []headerText          `json:"features,omitempty"`
	Preprocessing dataset.Preprocessing `json:"preprocessing"`
	Params        paramsJSON            `json:"params"`
	Source        provenanceJSON        `json:"source"`
}

const headerFormat = "cvar-model"

// riskName is the objective's name in a model file: empty for the
// method's own, CVaR_α or the mean.
func riskName(o Objective) string {
	if o <= ObjectiveCVaR {
		return ""
	}
	return o.String()
}

func methodName(m Method) string {
	s, _ := methods.name(m)
	return s
}

// SaveModel writes m to w in the model file format (see "Model files" in the
// package documentation). It checks m first and writes nothing if it is
// inconsistent.
func SaveModel(w io.Writer, m *ModelFile) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if w == nil {
		return errors.New("cvar: no writer for the model (nil io.Writer)")
	}
	pr := m.Params
	h := header{
		Format: headerFormat, Model: m.Kind, D: m.D, K: m.K, Hidden: m.Hidden,
		Precision: m.Precision, NumParams: len(m.Theta),
		Tau: jsonfloat.Exact(m.Tau), Alpha: jsonfloat.Exact(m.Alpha), Method: methodName(m.Method),
		Classes: toHeaderTexts(m.Classes), Features: toHeaderTexts(m.Features), Preprocessing: m.Preprocessing,
		Params: paramsJSON{
			Method: methodName(pr.Method), Alpha: jsonfloat.Exact(pr.Alpha), N: pr.N, Steps: pr.Steps, Batch: pr.Batch,
			G: jsonfloat.Exact(pr.G), Beta: jsonfloat.Exact(pr.Beta), L: jsonfloat.Exact(pr.L), D: jsonfloat.Exact(pr.D), GAlpha: jsonfloat.Exact(pr.GAlpha),
			LR: jsonfloat.Exact(pr.LR), Eps: jsonfloat.Exact(pr.Eps), TauMin: jsonfloat.Exact(pr.TauMin), TauMax: jsonfloat.Exact(pr.TauMax),
			Bound: jsonfloat.Exact(pr.Bound), Estimated: pr.Estimated, TheoremLR: pr.TheoremLR, TheoremEps: pr.TheoremEps,
			Risk: riskName(pr.Risk), Blend: pr.Blend, Trim: pr.Trim, Rho: pr.Rho, GroupLR: pr.GroupLR, Groups: pr.Groups,
		},
		Source: toProvenanceJSON(m.Source),
	}
	js, err := json.Marshal(&h)
	if err != nil {
		return fmt.Errorf("cvar: encoding the model header: %w", err)
	}
	if len(js) > maxHeaderBytes {
		return fmt.Errorf("cvar: model header of %d bytes exceeds %d", len(js), maxHeaderBytes)
	}
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<16)
	var pre [16]byte
	copy(pre[:8], modelMagic)
	binary.LittleEndian.PutUint32(pre[8:], ModelFileVersion)
	binary.LittleEndian.PutUint32(pre[12:], uint32(len(js)))
	bw.Write(pre[:])
	bw.Write(js)
	var buf [8]byte
	for _, v := range m.Theta {
		if m.Precision == F32 {
			binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(float32(v)))
			bw.Write(buf[:4])
		} else {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cvar: writing the model: %w", err)
	}
	binary.LittleEndian.PutUint32(buf[:4], crc.Sum32())
	if _, err := w.Write(buf[:4]); err != nil {
		return fmt.Errorf("cvar: writing the model: %w", err)
	}
	return nil
}

// LoadModel reads a model file written by SaveModel (see "Model files" in
// the package documentation) and checks it. Errors match ErrModelFormat,
// ErrModelVersion, ErrModelTrunc, ErrModelChecksum or ErrModelInvalid under
// errors.Is, or wrap the reader's error.
//
// It reads the 8-byte magic first. So a stream that is not a model file
// costs 8 bytes, or 10 to say that it is gzip- or bzip2-compressed. Then
// it reads the version and the header length (at most 64 MiB). Then it
// reads the header and the rest of the file. The rest is at most the
// 4-byte checksum and the parameters of the largest model
// (batch.MaxParams of 8 bytes).
//
// The checksum covers every byte before it. It is verified before the
// header is interpreted. So a damaged file is reported as such even where
// its header still reads as a model's. A file shorter than its header
// announces is reported as truncated, and bytes after the checksum as
// invalid. Only then is the header checked. Its shapes must give at most
// batch.MaxParams parameters (see batch.NumParams).
//
// Some readers report their remaining size: an *os.File on a regular
// file, a *bytes.Reader, a *strings.Reader. From those, a header longer
// than the file is refused before it is read. So is a file larger than a
// model can be. Otherwise memory grows with the bytes actually there,
// never with what a header claims.
func LoadModel(r io.Reader) (*ModelFile, error) {
	if r == nil {
		return nil, errors.New("cvar: no reader for the model (nil io.Reader)")
	}
	size := remaining(r) // −1 if unknown
	pre, hlen, err := readPreamble(r, size)
	if err != nil {
		return nil, err
	}
	js, err := readUpTo(r, hlen)
	if err != nil {
		return nil, readErr(err)
	}
	if int64(len(js)) < hlen {
		return nil, truncErr(fmt.Sprintf("in the %d-byte header", hlen))
	}
	rest, err := readRest(r, size, 16+hlen, js)
	if err != nil {
		return nil, err
	}
	if err := verifyModel(pre[:], js, rest); err != nil {
		return nil, err
	}
	return parseModel(js, rest[:len(rest)-4])
}

// readErr is the error of the reader that LoadModel reads from.
func readErr(err error) error { return fmt.Errorf("cvar: reading the model: %w", err) }

// readPreamble reads the 16-byte preamble: the magic, the version and the
// header length. It returns the preamble and the header length. The length
// is checked against the remaining size (−1 if unknown).
func readPreamble(r io.Reader, size int64) (pre [16]byte, hlen int64, err error) {
	if err := readMagic(r, pre[:len(modelMagic)]); err != nil {
		return pre, 0, err
	}
	if _, err := io.ReadFull(r, pre[len(modelMagic):]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return pre, 0, truncErr("in the 16-byte preamble")
		}
		return pre, 0, readErr(err)
	}
	if v := binary.LittleEndian.Uint32(pre[8:]); v != ModelFileVersion {
		return pre, 0, fmt.Errorf("%w: the file is version %d, this program reads version %d", ErrModelVersion, v, ModelFileVersion)
	}
	hlen = int64(binary.LittleEndian.Uint32(pre[12:]))
	if hlen > maxHeaderBytes {
		return pre, 0, fmt.Errorf("%w: header length %d exceeds %d bytes", ErrModelInvalid, hlen, maxHeaderBytes)
	}
	if size >= 0 && 16+hlen > size {
		return pre, 0, truncErr(fmt.Sprintf("in the %d-byte header", hlen))
	}
	return pre, hlen, nil
}

// readMagic reads the magic into b. A file that does not start with it is
// not a model file. A compressed one is named as such.
func readMagic(r io.Reader, b []byte) error {
	n, err := io.ReadFull(r, b)
	switch {
	case n == 0 && err == io.EOF:
		return fmt.Errorf("%w: the file is empty", ErrModelFormat)
	case !strings.HasPrefix(modelMagic, string(b[:n])):
		head := b[:n]
		if n == len(b) && string(b[:3]) == "BZh" { // bzip2 takes 10 bytes to tell from text
			var more [2]byte
			m, _ := io.ReadFull(r, more[:])
			head = append(append([]byte(nil), b...), more[:m]...)
		}
		if kind := dataset.Compression(head); kind != "" {
			return fmt.Errorf("%w (it is %s-compressed): model files are not compressed; decompress it first", ErrModelFormat, kind)
		}
		return fmt.Errorf("%w (it does not start with %q)", ErrModelFormat, modelMagic)
	case err == io.ErrUnexpectedEOF:
		return truncErr("in the magic number")
	case err != nil:
		return readErr(err)
	}
	return nil
}

// maxRest is the most bytes a model file holds after its header: the
// largest model's parameters and the checksum.
const maxRest = batch.MaxParams*8 + 4

// readRest reads the file after its header, which ends at byte at. That
// is the parameters and the checksum, at most maxRest bytes. From a stream
// of unknown size it reads at most what the header js announces, read
// leniently, plus streamSlack. Where the header announces nothing, it
// reads streamSlack. So endless input is refused within a bound of the
// model's own size. The checksum then judges what was read. A file that
// holds more is refused.
func readRest(r io.Reader, size, at int64, js []byte) ([]byte, error) {
	if size >= 0 && size-at > maxRest {
		return nil, fmt.Errorf("%w: %d bytes after the header, more than the largest model's parameters and checksum", ErrModelInvalid, size-at)
	}
	limit := int64(maxRest)
	if size < 0 {
		limit = streamSlack
		if p, width, ok := announcedParams(js); ok {
			limit = min(maxRest, int64(p)*width+4+streamSlack)
		}
	}
	rest, err := readUpTo(r, limit+1)
	if err != nil {
		return nil, readErr(err)
	}
	if int64(len(rest)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes after the header, more than its parameters and checksum", ErrModelInvalid, limit)
	}
	return rest, nil
}

// streamSlack is how many bytes a model read from a stream may hold past
// the size its header announces. More are refused unread. It is enough to
// tell bytes appended to a model from a corrupted one.
const streamSlack = 64 << 20

// verifyModel checks the checksum at the end of rest against the preamble
// pre, the header js and the rest before it. Where it disagrees, the
// header's shapes, precision and num_params, read leniently, tell the
// cause. The file may be shorter than announced (truncated). It may
// continue past a checksum that matches (bytes appended). Otherwise it is
// corrupted.
func verifyModel(pre, js, rest []byte) error {
	sum := func(n int64) uint32 { // the CRC-32C of the file's first 16+len(js)+n bytes
		crc := crc32.New(castagnoli)
		crc.Write(pre)
		crc.Write(js)
		crc.Write(rest[:n])
		return crc.Sum32()
	}
	n := int64(len(rest))
	if n >= 4 && checkCRC(sum(n-4), rest[n-4:]) == nil {
		return nil
	}
	p, width, announced := announcedParams(js)
	switch {
	case announced && n < int64(p)*width:
		return truncErr(fmt.Sprintf("in the %d parameters", p))
	case announced && n < int64(p)*width+4, n < 4:
		return truncErr("in the 4-byte checksum")
	case announced && n > int64(p)*width+4:
		end := int64(p) * width
		if checkCRC(sum(end), rest[end:end+4]) == nil {
			return fmt.Errorf("%w: %d bytes after the checksum", ErrModelInvalid, n-end-4)
		}
		return fmt.Errorf("%w (or bytes were appended to it)", checkCRC(sum(n-4), rest[n-4:]))
	}
	return checkCRC(sum(n-4), rest[n-4:])
}

// announcedParams reads the header js leniently for the parameters it
// announces: their number and the bytes of each. It reports whether it
// could. Its num_params must agree with its shapes, and its precision must
// be known. Otherwise the header itself may be what is damaged.
func announcedParams(js []byte) (p int, width int64, ok bool) {
	var h struct {
		Model     string `json:"model"`
		D         int    `json:"d"`
		K         int    `json:"k"`
		Hidden    int    `json:"hidden"`
		Precision string `json:"precision"`
		NumParams int    `json:"num_params"`
	}
	if json.Unmarshal(js, &h) != nil {
		return 0, 0, false
	}
	p, err := batch.NumParams(h.Model, h.D, h.K, h.Hidden)
	width = precisionWidth(h.Precision)
	return p, width, err == nil && p == h.NumParams && width > 0
}

// parseModel interprets a header js whose checksum matched, and the
// parameters' bytes raw that follow it.
func parseModel(js, raw []byte) (*ModelFile, error) {
	h, err := decodeHeader(js)
	if err != nil {
		return nil, err
	}
	p, width, err := checkHeader(&h)
	if err != nil {
		return nil, err
	}
	source := h.Source.provenance()
	if err := source.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelInvalid, err)
	}
	switch need := int64(p) * width; {
	case int64(len(raw)) < need:
		return nil, truncErr(fmt.Sprintf("in the %d parameters", p))
	case int64(len(raw)) > need:
		return nil, fmt.Errorf("%w: %d bytes of parameters; %d parameters of %s take %d", ErrModelInvalid, len(raw), p, h.Precision, need)
	}
	return modelOf(&h, source, raw, width)
}

// decodeHeader decodes the JSON header js: one object of known fields and
// nothing after it but JSON whitespace.
func decodeHeader(js []byte) (header, error) {
	var h header
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	err := dec.Decode(&h)
	if rest := bytes.TrimLeft(js[dec.InputOffset():], " \t\r\n"); err == nil && len(rest) > 0 {
		err = fmt.Errorf("%d bytes after its JSON object", len(rest))
	}
	if err != nil {
		return header{}, fmt.Errorf("%w: header: %v", ErrModelInvalid, err)
	}
	return h, nil
}

// checkHeader checks the header's format, precision and shapes, and
// returns the number of parameters they give and the bytes of each.
func checkHeader(h *header) (p int, width int64, err error) {
	if h.Format != headerFormat {
		return 0, 0, fmt.Errorf("%w: header format %q, want %q", ErrModelInvalid, h.Format, headerFormat)
	}
	if width = precisionWidth(h.Precision); width == 0 {
		return 0, 0, fmt.Errorf("%w: precision %q (want f32 or f64)", ErrModelInvalid, h.Precision)
	}
	p, err = batch.NumParams(h.Model, h.D, h.K, h.Hidden)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s", ErrModelInvalid, strings.TrimPrefix(err.Error(), "batch: "))
	}
	if h.NumParams != p {
		return 0, 0, fmt.Errorf("%w: num_params %d; a %s model with d = %d, k = %d, hidden = %d has %d", ErrModelInvalid, h.NumParams, h.Model, h.D, h.K, h.Hidden, p)
	}
	return p, width, nil
}

// precisionWidth is the number of bytes of a parameter of precision prec:
// 4 for f32, 8 for f64, 0 for any other.
func precisionWidth(prec string) int64 {
	switch prec {
	case F32:
		return 4
	case F64:
		return 8
	}
	return 0
}

// modelOf builds and validates the model of a checked header h. It takes
// the provenance and the bytes raw of the parameters, width bytes each.
func modelOf(h *header, source Provenance, raw []byte, width int64) (*ModelFile, error) {
	m := &ModelFile{
		Kind: h.Model, D: h.D, K: h.K, Hidden: h.Hidden, Precision: h.Precision,
		Theta: make([]float64, int64(len(raw))/width), Tau: float64(h.Tau), Alpha: float64(h.Alpha),
		Classes: fromHeaderTexts(h.Classes), Features: fromHeaderTexts(h.Features), Preprocessing: h.Preprocessing, Source: source,
	}
	for i := range m.Theta {
		if width == 4 {
			m.Theta[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		} else {
			m.Theta[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
	}
	if err := m.Method.UnmarshalText([]byte(h.Method)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelInvalid, err)
	}
	hp := h.Params
	m.Params = Params{
		Alpha: float64(hp.Alpha), N: hp.N, Steps: hp.Steps, Batch: hp.Batch,
		G: float64(hp.G), Beta: float64(hp.Beta), L: float64(hp.L), D: float64(hp.D), GAlpha: float64(hp.GAlpha),
		LR: float64(hp.LR), Eps: float64(hp.Eps), TauMin: float64(hp.TauMin), TauMax: float64(hp.TauMax),
		Bound: float64(hp.Bound), Estimated: hp.Estimated, TheoremLR: hp.TheoremLR, TheoremEps: hp.TheoremEps,
		Blend: hp.Blend, Trim: hp.Trim, Rho: hp.Rho, GroupLR: hp.GroupLR, Groups: hp.Groups,
	}
	if err := m.Params.Risk.UnmarshalText([]byte(hp.Risk)); err != nil {
		return nil, fmt.Errorf("%w: params: %v", ErrModelInvalid, err)
	}
	if hp.Method != "" {
		if err := m.Params.Method.UnmarshalText([]byte(hp.Method)); err != nil {
			return nil, fmt.Errorf("%w: params: %v", ErrModelInvalid, err)
		}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// checkCRC compares the CRC-32C of the content with the 4 stored bytes.
func checkCRC(got uint32, stored []byte) error {
	if want := binary.LittleEndian.Uint32(stored); got != want {
		return fmt.Errorf("%w: stored CRC-32C %08x, content has %08x (the file is corrupted)", ErrModelChecksum, want, got)
	}
	return nil
}

// readUpTo reads up to n bytes of r, fewer only at EOF. Its buffer grows
// with the bytes read, not with n.
func readUpTo(r io.Reader, n int64) ([]byte, error) {
	var buf bytes.Buffer
	if n <= 1<<20 {
		buf.Grow(int(n))
	}
	_, err := io.Copy(&buf, io.LimitReader(r, n))
	return buf.Bytes(), err
}

// remaining returns the number of bytes left in r when r can tell (a
// regular file, or an in-memory reader), else −1.
func remaining(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }: // *bytes.Reader, *strings.Reader, *bytes.Buffer
		return int64(v.Len())
	case interface {
		Stat() (fs.FileInfo, error)
		io.Seeker
	}: // *os.File
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		at, err := v.Seek(0, io.SeekCurrent)
		if err != nil || at > fi.Size() {
			return -1
		}
		return fi.Size() - at
	}
	return -1
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func truncErr(where string) error {
	return fmt.Errorf("%w: the file ends %s", ErrModelTrunc, where)
}
