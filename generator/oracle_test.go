package generator_test

// The differential test bed: every API of the catalogue goes through
// controller-gen (the version Kubebuilder scaffolds, built by
// hack/oracle-tools.sh) and a real kube-apiserver's CRD validation, the
// oracle of what is legal, and through ssagen. When the oracle accepts,
// ssagen must generate, and its merge schema must carry the list, map and
// struct semantics of the CRD field by field; when it refuses, ssagen must
// exit with an error. A case may differ only as listed in deliberate, each
// with its reason (the README's table says the same).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/yaml"

	"github.com/ssagen/ssagen/generator"
	"github.com/ssagen/ssagen/generator/load"
	"github.com/ssagen/ssagen/generator/model"
	"github.com/ssagen/ssagen/generator/output"
	ssaschema "github.com/ssagen/ssagen/generator/schema"
	"github.com/ssagen/ssagen/internal/testenv"
)

// deliberate are the cases where ssagen refuses what the oracle accepts.
var deliberate = map[string]string{
	"bad/ambiguous":   "encoding/json writes neither of two fields with one JSON name at one depth: the CRD would have a field no Go client can set",
	"bad/array":       "a Go array is a list to controller-gen, but structured-merge-diff's reflection (Extract, the skip check) panics on it",
	"bad/dupkind":     "the package does not compile; controller-gen still writes a CRD from one of the two declarations",
	"bad/inlinecycle": "structured-merge-diff's reflection recurses for ever into structs that inline each other: Extract and the skip check would overflow the stack",
	"bad/unexported":  "encoding/json never writes an unexported field: the CRD would have a field no Go client can set, as with ambiguous names",
}

// deliberateRefusal reports whether every error of ssagen's is one of the
// deliberate differences (the README's table): ambiguous JSON names, Go
// arrays, and embeds of non-structs that encoding/json names while
// controller-gen inlines them.
func deliberateRefusal(err error) bool {
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.HasPrefix(line, "\t") {
			continue
		}
		if !strings.Contains(line, "so encoding/json writes none of them") && !strings.Contains(line, "has array type") &&
			!strings.Contains(line, "without a JSON name: controller-gen inlines it into its parent, which only a struct can be") {
			return false
		}
	}
	return true
}

// oracleCases are the catalogue: single-package APIs that either tool can load.
func oracleCases(t *testing.T) []string {
	var out []string
	for _, glob := range []string{"testdata/bad/*", "testdata/oracle/*", "testdata/legal/input"} {
		dirs, _ := filepath.Glob(glob)
		for _, d := range dirs {
			if files, _ := filepath.Glob(filepath.Join(d, "*.go")); len(files) > 0 {
				out = append(out, strings.TrimPrefix(d, "testdata/"))
			}
		}
	}
	sort.Strings(out)
	if len(out) < 20 {
		t.Fatalf("only %d cases in the catalogue", len(out))
	}
	return out
}

func TestOracle(t *testing.T) {
	cg := os.Getenv("SSAGEN_ORACLE")
	if cg == "" {
		if os.Getenv("SSAGEN_REQUIRE_ENVTEST") != "" {
			t.Fatal("SSAGEN_ORACLE is not set: `make test` sets it to the controller-gen hack/oracle-tools.sh builds")
		}
		t.Skip("SSAGEN_ORACLE is not set (make test builds controller-gen and sets it)")
	}
	cfg := testenv.Start(t)
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Every accepted case's output must compile: it is written below the
	// module (git ignores the folder) and vetted at the end.
	outRoot := filepath.Join("testdata", "oracleout")
	os.RemoveAll(outRoot)
	t.Cleanup(func() { os.RemoveAll(outRoot) })
	generated := 0
	for _, c := range oracleCases(t) {
		t.Run(c, func(t *testing.T) {
			if reason, ok := deliberate[c]; ok {
				legal, _, _ := oracle(t, cg, crds, "./testdata/"+c)
				_, genErr := generator.Load(&generator.Config{Packages: []string{"./testdata/" + c}, OutputDir: t.TempDir(), OutputPkg: "example.com/out"})
				if !legal || genErr == nil {
					t.Fatalf("listed as a deliberate difference (%s), but the oracle says legal=%v and ssagen's error is %v", reason, legal, genErr)
				}
				return
			}
			if !agree(t, cg, crds, "./testdata/"+c) {
				return
			}
			name := strings.NewReplacer("/", "_", "-", "_").Replace(c)
			gcfg := generator.Config{Packages: []string{"./testdata/" + c}, OutputDir: filepath.Join(outRoot, name),
				OutputPkg: module + "/generator/testdata/oracleout/" + name, Ensure: true}
			if err := generator.Generate(gcfg, output.Disk{Dir: generator.OutputDir(gcfg)}); err != nil {
				t.Fatal(err)
			}
			u, err := generator.Load(&gcfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, gv := range u.GroupVersions {
				writeSetterTest(t, filepath.Join(outRoot, name, filepath.FromSlash(gv.OutSubdir)), gv)
			}
			generated++
		})
	}
	if generated == 0 {
		t.Fatal("no case of the catalogue generated")
	}
	if out, err := exec.Command("go", "test", "-count=1", "./"+filepath.ToSlash(outRoot)+"/...").CombinedOutput(); err != nil {
		t.Fatalf("the output of an accepted case does not compile, or a setter's value is not sent:\n%s", out)
	}
}

// writeSetterTest adds a test to a generated package: every With function
// of every apply configuration, called with a non-zero value, changes the
// JSON that is sent. A setter of a field encoding/json hides (a shadowed
// inline field, a duplicated name) would change nothing.
func writeSetterTest(t *testing.T, dir string, gv *model.GroupVersion) {
	t.Helper()
	var types []string
	for _, typ := range gv.Types {
		if typ.ApplyConfig != nil {
			types = append(types, "\treflect.TypeOf(&"+typ.ApplyConfig.Name+"{}),")
		}
	}
	src := "package " + path.Base(gv.OutPkgPath) + "\n\n" + setterTestSource + "\nvar applyConfigurations = []reflect.Type{\n" + strings.Join(types, "\n") + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "setters_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every kind, populated, through the generated conversion path: the
	// schema's reflection (what the helpers' skip check runs) and Extract.
	var kinds []string
	for _, k := range gv.Kinds() {
		kinds = append(kinds, fmt.Sprintf("\t{obj: &input.%[1]s{}, schema: %[2]q, extract: func(o any) error { _, err := %[3]s(o.(*input.%[1]s), \"m\"); return err }},",
			k.Name.Name, k.Name.SchemaName(), k.Root.Funcs.Extract))
	}
	if len(kinds) == 0 {
		return
	}
	conv := "package " + path.Base(gv.OutPkgPath) + "\n\n" + strings.Replace(convertTestSource, "INPUT", gv.PkgPath, 1) +
		strings.Replace(convertTestImports, "INTERNAL", path.Join(path.Dir(path.Dir(gv.OutPkgPath)), "internal"), 1) +
		"\nvar kinds = []kindCase{\n" + strings.Join(kinds, "\n") + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "convert_test.go"), []byte(conv), 0o644); err != nil {
		t.Fatal(err)
	}
}

const setterTestSource = `import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestEverySetterIsSent(t *testing.T) {
	for _, typ := range applyConfigurations {
		for i := 0; i < typ.NumMethod(); i++ {
			m := typ.Method(i)
			if !strings.HasPrefix(m.Name, "With") {
				continue
			}
			obj := reflect.New(typ.Elem())
			before, _ := json.Marshal(obj.Interface())
			args := []reflect.Value{}
			for a := 0; a < m.Type.NumIn()-1; a++ {
				in := m.Type.In(a + 1)
				if m.Type.IsVariadic() && a == m.Type.NumIn()-2 {
					in = in.Elem()
				}
				args = append(args, fill(in, 0))
			}
			obj.MethodByName(m.Name).Call(args)
			after, err := json.Marshal(obj.Interface())
			if err != nil {
				t.Errorf("%s.%s: %v", typ.Elem().Name(), m.Name, err)
			}
			if string(after) == string(before) {
				t.Errorf("%s.%s sets a value that is never sent (JSON stays %s)", typ.Elem().Name(), m.Name, after)
			}
		}
	}
}

// fill makes a non-zero value of t.
func fill(t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	if depth > 5 {
		return v
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		v.Elem().Set(fill(t.Elem(), depth+1))
	case reflect.Slice:
		v.Set(reflect.Append(v, fill(t.Elem(), depth+1)))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(fill(t.Key(), depth+1), fill(t.Elem(), depth+1))
	case reflect.Interface:
		if t.NumMethod() == 0 {
			v.Set(reflect.ValueOf("x"))
		}
	case reflect.Struct:
		// RawExtension, apiextensions' JSON: raw JSON, which must parse.
		if f, ok := t.FieldByName("Raw"); ok && f.Type == reflect.TypeOf([]byte(nil)) {
			v.FieldByName("Raw").SetBytes([]byte("{\"a\":1}"))
			return v
		}
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				v.Field(i).Set(fill(t.Field(i).Type, depth+1))
			}
		}
	}
	return v
}
`

// convertTestSource converts a populated object of every kind with the
// generated schema (structured-merge-diff's reflection, as the helpers'
// skip check does) and extracts it with the generated Extract, from the
// field set of that conversion: no panic, no error. fill is the setter
// test's.
const convertTestSource = `import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	input "INPUT"
`

const convertTestImports = `	internal "INTERNAL"
)

type kindCase struct {
	obj     any
	schema  string
	extract func(any) error
}

func TestEveryKindConverts(t *testing.T) {
	for _, k := range kinds {
		obj := reflect.New(reflect.TypeOf(k.obj).Elem())
		// Deeper than the setters need: list-map keys far down are set too.
		obj.Elem().Set(fill(obj.Elem().Type(), -8))
		o := obj.Interface().(metav1.Object)
		o.SetManagedFields(nil)
		tv, err := internal.Parser().Type(k.schema).FromStructured(obj.Interface())
		if err != nil {
			t.Errorf("%s: converting a populated object: %v", k.schema, err)
			continue
		}
		fs, err := tv.ToFieldSet()
		if err != nil {
			t.Errorf("%s: its field set: %v", k.schema, err)
			continue
		}
		raw, err := fs.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		o.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}}})
		if err := k.extract(obj.Interface()); err != nil {
			t.Errorf("%s: Extract of a populated object: %v", k.schema, err)
		}
	}
}
`

// agree checks ssagen against the oracle on one package: the same verdict,
// and for a legal API the CRD's semantics in ssagen's schema. It reports
// whether the API is legal.
func agree(t *testing.T, cg string, crds apiextensionsclient.Interface, pkg string) bool {
	t.Helper()
	legal, why, docs := oracle(t, cg, crds, pkg)
	u, genErr := generator.Load(&generator.Config{Packages: []string{pkg}, OutputDir: t.TempDir(), OutputPkg: "example.com/out"})
	switch {
	case legal && genErr != nil && deliberateRefusal(genErr):
		t.Logf("a deliberate difference: the oracle accepts, ssagen refuses: %v", genErr)
		return false
	case legal && genErr != nil:
		t.Fatalf("controller-gen and the API server accept this API; ssagen refuses it:\n%v", genErr)
	case !legal && genErr == nil:
		t.Fatalf("the oracle refuses this API (%s); ssagen generates it", why)
	case !legal:
		return false
	}
	s := ssaschema.Build(u)
	for _, crd := range docs {
		compareCRD(t, u, s, crd)
	}
	return true
}

// oracle runs controller-gen on the package and creates its CRDs on the
// API server: legal when both accept.
func oracle(t *testing.T, cg string, crds apiextensionsclient.Interface, pkg string) (bool, string, []*apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command(cg, "crd", "paths="+pkg, "output:crd:dir="+dir).CombinedOutput()
	if err != nil {
		return false, "controller-gen: " + firstLine(string(out)), nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var docs []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(b, crd); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return false, "kube-apiserver: " + firstLine(err.Error()), nil
		}
		docs = append(docs, crd)
	}
	if len(docs) == 0 {
		return false, "controller-gen wrote no CRD", nil
	}
	return true, "", docs
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// compareCRD walks each version's schema beside ssagen's schema of the kind.
func compareCRD(t *testing.T, u *model.Universe, s *schema.Schema, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	for _, v := range crd.Spec.Versions {
		var kind *model.Type
		for _, gv := range u.GroupVersions {
			for _, k := range gv.Kinds() {
				if gv.Group == crd.Spec.Group && k.Name.Name == crd.Spec.Names.Kind {
					kind = k
				}
			}
		}
		if kind == nil {
			t.Errorf("ssagen has no kind %s of group %s", crd.Spec.Names.Kind, crd.Spec.Group)
			continue
		}
		if want := map[bool]apiextensionsv1.ResourceScope{true: apiextensionsv1.NamespaceScoped, false: apiextensionsv1.ClusterScoped}[kind.Root.Namespaced]; crd.Spec.Scope != want {
			t.Errorf("%s: the CRD is %s, ssagen's kind %s", kind.Name.Name, crd.Spec.Scope, want)
		}
		name := kind.Name.SchemaName()
		w := &walker{t: t, s: s}
		w.walk(kind.Name.Name+"("+v.Name+")", v.Schema.OpenAPIV3Schema, schema.TypeRef{NamedType: &name}, true)
	}
}

type walker struct {
	t *testing.T
	s *schema.Schema
}

func (w *walker) walk(path string, p *apiextensionsv1.JSONSchemaProps, tr schema.TypeRef, root bool) {
	if p == nil {
		return
	}
	atom, ok := w.s.Resolve(tr)
	if !ok {
		w.t.Errorf("%s: ssagen's schema has no type for it", path)
		return
	}
	if p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields || p.XIntOrString || p.XEmbeddedResource {
		if atom.Scalar == nil || *atom.Scalar != schema.Untyped {
			if !(atom.Map != nil && atom.Map.ElementType.NamedType != nil) && !(tr.NamedType != nil && strings.HasPrefix(*tr.NamedType, "__untyped")) {
				w.t.Errorf("%s: the CRD holds any JSON here; ssagen's schema does not (%+v)", path, atom)
			}
		}
		return
	}
	switch p.Type {
	case "array":
		if atom.List == nil {
			w.t.Errorf("%s: the CRD has a list; ssagen's schema does not", path)
			return
		}
		want := schema.Atomic
		if p.XListType != nil && (*p.XListType == "set" || *p.XListType == "map") {
			want = schema.Associative
		}
		if atom.List.ElementRelationship != want {
			w.t.Errorf("%s: the CRD's list is %s, ssagen's %s", path, listType(p), atom.List.ElementRelationship)
		}
		if fmt.Sprint(p.XListMapKeys) != fmt.Sprint(nilIfEmpty(atom.List.Keys)) {
			w.t.Errorf("%s: the CRD's list-map keys are %v, ssagen's %v", path, p.XListMapKeys, atom.List.Keys)
		}
		if p.Items != nil {
			w.walk(path+"[]", p.Items.Schema, atom.List.ElementType, false)
		}
	case "object":
		if atom.Map == nil {
			w.t.Errorf("%s: the CRD has an object; ssagen's schema does not", path)
			return
		}
		atomic := p.XMapType != nil && *p.XMapType == "atomic"
		if atomic != (atom.Map.ElementRelationship == schema.Atomic) {
			w.t.Errorf("%s: the CRD's map-type is %v, ssagen's %s", path, p.XMapType, atom.Map.ElementRelationship)
		}
		for name, prop := range p.Properties {
			if root && name == "metadata" {
				continue // the API server's own ObjectMeta schema
			}
			f, ok := atom.Map.FindField(name)
			if !ok {
				w.t.Errorf("%s.%s: in the CRD, not in ssagen's schema", path, name)
				continue
			}
			w.walk(path+"."+name, &prop, f.Type, false)
		}
		for _, f := range atom.Map.Fields {
			if _, ok := p.Properties[f.Name]; !ok && len(p.Properties) > 0 {
				w.t.Errorf("%s.%s: in ssagen's schema, not in the CRD", path, f.Name)
			}
		}
		if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
			w.walk(path+"{}", p.AdditionalProperties.Schema, atom.Map.ElementType, false)
		}
	}
}

func listType(p *apiextensionsv1.JSONSchemaProps) string {
	if p.XListType == nil {
		return "atomic"
	}
	return *p.XListType
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// semanticMarkers are the markers of the oracle that decide what ssagen
// generates or how the API server merges: ssagen must read every one.
var semanticMarkers = []string{
	"groupName package", "versionName package",
	"kubebuilder:resource type", "kubebuilder:subresource:status type",
	"listType field", "listType type", "listMapKey field", "listMapKey type",
	"k8s:listType field", "k8s:listType type", "k8s:listMapKey field", "k8s:listMapKey type",
	"mapType field", "mapType type", "structType field", "structType type",
	"optional field", "k8s:optional field", "required field", "k8s:required field",
	"kubebuilder:validation:Optional field", "kubebuilder:default field",
	"kubebuilder:pruning:PreserveUnknownFields field", "kubebuilder:validation:XPreserveUnknownFields field",
	"kubebuilder:validation:EmbeddedResource field", "kubebuilder:validation:XEmbeddedResource field",
	"kubebuilder:validation:Schemaless field", "kubebuilder:validation:XIntOrString field",
}

// TestMarkerSet fails when the oracle's marker set changes (a new
// controller-tools): testdata/oracle/markers.txt is what was reviewed
// (go test -run TestMarkerSet -update rewrites it), and every marker that
// changes generation or merging must parse in ssagen.
func TestMarkerSet(t *testing.T) {
	cg := os.Getenv("SSAGEN_ORACLE")
	if cg == "" {
		if os.Getenv("SSAGEN_REQUIRE_ENVTEST") != "" {
			t.Fatal("SSAGEN_ORACLE is not set")
		}
		t.Skip("SSAGEN_ORACLE is not set")
	}
	out, err := exec.Command(cg, "crd", "-w").CombinedOutput()
	if err != nil {
		t.Fatalf("%s crd -w: %v\n%s", cg, err, out)
	}
	set := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "+") {
			continue
		}
		name := strings.TrimPrefix(f[0], "+")
		if i := strings.IndexAny(name, "=["); i >= 0 {
			name = name[:i]
		}
		set[name+" "+f[1]] = true
	}
	var got []string
	for k := range set {
		got = append(got, k)
	}
	sort.Strings(got)
	golden := filepath.Join("testdata", "oracle", "markers.txt")
	if *update {
		os.WriteFile(golden, []byte(strings.Join(got, "\n")+"\n"), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if strings.Join(got, "\n")+"\n" != string(want) {
		t.Errorf("the oracle's marker set changed: review the new markers, teach ssagen those that change generation or merging, then go test -run TestMarkerSet -update\nnow: %v", got)
	}
	for _, m := range semanticMarkers {
		if !set[m] {
			t.Errorf("the oracle no longer has marker %q", m)
		}
		f := strings.Fields(m)
		if !load.Knows(f[0], f[1]) {
			t.Errorf("ssagen does not read marker +%s on a %s", f[0], f[1])
		}
	}
}
