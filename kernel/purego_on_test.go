//go:build purego

package kernel

// puregoBuild reports whether the build excludes assembly.
const puregoBuild = true
