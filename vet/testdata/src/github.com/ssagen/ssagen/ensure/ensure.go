// Package ensure is a stub of ssagen's runtime for analyzer tests.
package ensure

type Option func()

type Result string

const Created Result = "created"

func NoOwner() Option { return nil }
