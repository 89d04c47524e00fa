package load

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/generator/model"
)

// TestK8sFit: the output follows the module's k8s.io/apimachinery, and a
// version it cannot compile against is refused with the way out.
func TestK8sFit(t *testing.T) {
	for _, c := range []struct {
		version, replace string
		ensure, compat   bool
		smd              string
		noConverter      bool
		inlineTag        bool
		err              string
	}{
		{version: "v0.37.0", smd: model.SMDTypedV6},
		{version: "v0.36.3", compat: true, smd: model.SMDTypedV6, inlineTag: true},
		{version: "v0.37.0", compat: true, smd: model.SMDTypedV6},
		{version: "v0.34.1", ensure: true, smd: model.SMDTypedV6},
		{version: "v0.33.3", smd: model.SMDTypedV4},
		{version: "v0.30.0", smd: model.SMDTypedV4, noConverter: true},
		{version: "v0.29.3", smd: model.SMDTypedV4, noConverter: true},
		{version: "v0.33.3", ensure: true, err: "the Ensure helpers' runtime (github.com/ssagen/ssagen/ensure) needs v0.34.0 or later"},
		{version: "v0.28.4", err: "this module builds with k8s.io/apimachinery v0.28.4; ssagen's output needs v0.29.0 or later"},
		{version: "v0.28.4", replace: "v0.37.0", smd: model.SMDTypedV6},
		{version: "v0.0.0-00010101000000-000000000000", replace: "../apimachinery", smd: model.SMDTypedV6},
	} {
		m := &packages.Module{Path: "k8s.io/apimachinery", Version: c.version}
		if c.replace != "" {
			m.Replace = &packages.Module{Path: "k8s.io/apimachinery", Version: c.replace}
			if strings.HasPrefix(c.replace, ".") {
				m.Replace = &packages.Module{Path: c.replace}
			}
		}
		l := &loader{cfg: Config{Ensure: c.ensure, CompatApplyconfigurationGen: c.compat},
			modules: map[string]*packages.Module{"k8s.io/apimachinery/pkg/apis/meta/v1": m}}
		u := &model.Universe{}
		l.k8sFit(u)
		if err := l.errs.Err(); c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: want an error %q, got %v", c, c.err, err)
			}
			continue
		} else if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if u.SMDTyped() != c.smd || u.NoTypeConverter != c.noConverter || u.InlineTag != c.inlineTag {
			t.Errorf("%+v: got smd %s, no converter %v, inline tag %v", c, u.SMDTyped(), u.NoTypeConverter, u.InlineTag)
		}
	}
}
