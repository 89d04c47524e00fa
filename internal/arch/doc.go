// Package arch holds the test of ssagen's layering: which of its
// packages may import which (arch_test.go).
package arch
