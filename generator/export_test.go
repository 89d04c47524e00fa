package generator

import "github.com/ssagen/ssagen/generator/load"

// WithLoader forces the first load of cfg's run (export data or source)
// for the tests that compare the two.
func WithLoader(cfg Config, l load.Loader) Config {
	cfg.loader = l
	return cfg
}
