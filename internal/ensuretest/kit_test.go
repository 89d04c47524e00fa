package ensure_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ssagen/ssagen/ensure"
	"github.com/ssagen/ssagen/ensure/ensuretest"
	platformv1alpha1 "github.com/ssagen/ssagen/examples/api/v1alpha1"
	"github.com/ssagen/ssagen/examples/generated/applyconfiguration"
	ac "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1"
	gen "github.com/ssagen/ssagen/examples/generated/applyconfiguration/api/v1alpha1/ensure"
	rbacv1ensure "github.com/ssagen/ssagen/examples/generated/applyconfiguration/rbac/v1/ensure"
)

// TestKitKeepsVersionOfUnchangedApply: the generated helpers on the test
// kit (ensure/ensuretest) at every controller-runtime of the matrix. A
// fresh ensure.Client knows nothing and sends its apply; the kit answers
// an apply that changes nothing as the API server does, keeping the
// resourceVersion and writing nothing, where a plain fake client (from
// v0.23, which versions applies) moves it. The custom resource's status
// is a subresource without being declared, and the owner got a UID.
func TestKitKeepsVersionOfUnchangedApply(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	clientgoscheme.AddToScheme(scheme)
	platformv1alpha1.AddToScheme(scheme)
	project := &platformv1alpha1.Project{ObjectMeta: metav1.ObjectMeta{Name: "kit"}}
	kit := ensuretest.NewClient(scheme, ensuretest.WithObjects(project),
		ensuretest.WithTypeConverters(applyconfiguration.NewTypeConverter(scheme)))
	plain := fake.NewClientBuilder().WithScheme(scheme).WithObjects(project.DeepCopy()).
		WithStatusSubresource(&platformv1alpha1.Project{}).
		WithTypeConverters(applyconfiguration.NewTypeConverter(scheme)).Build()
	if err := kit.Get(ctx, client.ObjectKeyFromObject(project), project); err != nil || project.UID == "" {
		t.Fatalf("the kit's project has no UID (%v)", err)
	}
	role := rbacv1ac.Role("kit-role", "default").WithRules(rbacv1ac.PolicyRule().WithVerbs("get").WithAPIGroups("").WithResources("pods"))
	status := ac.Project("kit").WithStatus(ac.ProjectStatus().WithPhase(platformv1alpha1.ProjectReady))
	versions := func(c client.Client) (roleVersion, statusVersion string) {
		var err error
		fresh := func() *ensure.Client { return ensure.NewClient(c, ensure.FieldManager("kit-test")) }
		r, _, err := rbacv1ensure.EnsureRole(ctx, fresh(), project, role)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := gen.EnsureProjectStatus(ctx, fresh(), status)
		if err != nil {
			t.Fatal(err)
		}
		return r.ResourceVersion, p.ResourceVersion
	}
	kitRole, kitStatus := versions(kit)
	mark := kit.Mark()
	if r, s := versions(kit); r != kitRole || s != kitStatus {
		t.Errorf("the kit moved the resourceVersions of unchanged applies: role %s → %s, status %s → %s", kitRole, r, kitStatus, s)
	}
	for _, w := range kit.Writes(mark) {
		if w.Wrote {
			t.Errorf("an unchanged apply wrote: %s", w)
		}
	}
	kit.ExpectNoConflicts(t, 0)
	if kit.Count(0, "apply", "Role") == 0 || kit.Count(0, "apply", "Project") == 0 {
		t.Errorf("the log lacks the applies:\n%v", kit.Requests(0))
	}
	plainRole, plainStatus := versions(plain)
	if plainRole == "" {
		t.Log("this controller-runtime's fake client versions no apply (v0.22): no contrast")
		return
	}
	if r, s := versions(plain); r == plainRole && s == plainStatus {
		t.Errorf("the plain fake client kept the resourceVersions (%s, %s): the kit is no longer needed for this", r, s)
	}
	// Who owns what, in one line. (The fake client's managedFields
	// entries name no subresource, where the API server's say "status".)
	managers, err := kit.Managers(ctx, project, "status", "phase")
	if err != nil || len(managers) != 1 || managers[0] != "kit-test" && managers[0] != "kit-test/status" {
		t.Errorf("managers of status.phase: %v %v", managers, err)
	}
}
