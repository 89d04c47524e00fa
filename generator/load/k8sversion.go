package load

import (
	"go/token"

	"golang.org/x/mod/semver"

	"github.com/ssagen/ssagen/generator/model"
)

// The k8s.io versions generated code is written for. Builders compile
// against k8s.io v0.29 and later (Argo Rollouts v1.8.3, pinned at v0.29.3,
// is the oldest API the real-API tests generate); client-go/testing has
// the type converter NewTypeConverter returns since v0.31, apimachinery's
// managedfields the scheme one and structured-merge-diff v6 since v0.34;
// the Ensure runtime (module github.com/ssagen/ssagen/ensure) requires
// v0.34.
const (
	oldestK8s        = "v0.29.0"
	typeConverterK8s = "v0.31.0"
	smdV6K8s         = "v0.34.0"
	oldestEnsureK8s  = smdV6K8s
	// applyconfiguration-gen tags inline embeds `json:""` since v0.37,
	// `json:",inline"` before.
	emptyInlineTagK8s = "v0.37.0"
)

// k8sFit fits the output to the k8s.io/apimachinery the module builds
// with, read from the loaded packages: structured-merge-diff's typed
// package, whether utils.go can have NewTypeConverter, and (with
// --compat=applyconfiguration-gen) the inline tag that release's
// applyconfiguration-gen writes. A version the output cannot compile
// against is an error, before anything is written. An unknown version (no
// module information, a local replacement) is taken as current.
func (l *loader) k8sFit(u *model.Universe) {
	m := l.modules["k8s.io/apimachinery/pkg/apis/meta/v1"]
	if m == nil {
		return
	}
	v := m.Version
	if m.Replace != nil {
		v = m.Replace.Version
	}
	if !semver.IsValid(v) {
		return
	}
	older := func(floor string) bool { return semver.Compare(v, floor+"-0") < 0 }
	switch {
	case older(oldestK8s):
		l.errs.Add(token.Position{}, "upgrade the module's k8s.io modules (go get k8s.io/client-go@"+oldestK8s+" k8s.io/apimachinery@"+oldestK8s+" k8s.io/api@"+oldestK8s+", or later), or generate with the code-generator release of your k8s.io version",
			"this module builds with k8s.io/apimachinery %s; ssagen's output needs %s or later, the oldest it is tested with", v, oldestK8s)
	case l.cfg.Ensure && older(oldestEnsureK8s):
		l.errs.Add(token.Position{}, "upgrade the module's k8s.io modules to "+oldestEnsureK8s+" or later (controller-runtime v0.22), or generate builders only: without --ensure the output supports "+oldestK8s+" and later",
			"this module builds with k8s.io/apimachinery %s; the Ensure helpers' runtime (github.com/ssagen/ssagen/ensure) needs %s or later, and requiring it would move the module's pins", v, oldestEnsureK8s)
	}
	if older(smdV6K8s) {
		u.SMDv4 = true
	}
	u.NoTypeConverter = older(typeConverterK8s)
	u.InlineTag = l.cfg.CompatApplyconfigurationGen && older(emptyInlineTagK8s)
}
