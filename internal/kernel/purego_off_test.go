//go:build gc && !purego

package kernel

// puregoBuild reports whether the build excludes assembly (-tags purego, or
// a compiler other than gc, which cannot assemble Go assembly).
const puregoBuild = false
