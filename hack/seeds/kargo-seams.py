#!/usr/bin/env python3
"""The hand rewrite of Kargo's management controllers that ssagen vet -fix
declines (docs/seeds.md): the five create functions the project reconciler
writes through — seams its tests replace — get the generated helpers'
signature and default, their call sites call them, and the tests set the
new seams where they set the old ones. Run from the root of a Kargo
checkout at ac76edede after `ssagen generate`; `ssagen vet -fix` then
rewrites the two sites that call the client directly, whose tests this
script moves (hack/seeds.sh, docs/seeds.md).
"""
import re
import sys

P = "pkg/controller/management/projects/projects.go"
S = "pkg/controller/management/serviceaccounts/serviceaccounts_test.go"
T = "pkg/controller/management/projects/projects_test.go"

KINDS = {  # seam kind -> (go type, apply configuration, helper)
    "ServiceAccount": ("*corev1.ServiceAccount", "*corev1ac.ServiceAccountApplyConfiguration", "corev1ensure.EnsureServiceAccount"),
    "Role": ("*rbacv1.Role", "*rbacv1ac.RoleApplyConfiguration", "rbacv1ensure.EnsureRole"),
    "RoleBinding": ("*rbacv1.RoleBinding", "*rbacv1ac.RoleBindingApplyConfiguration", "rbacv1ensure.EnsureRoleBinding"),
    "ClusterRole": ("*rbacv1.ClusterRole", "*rbacv1ac.ClusterRoleApplyConfiguration", "rbacv1ensure.EnsureClusterRole"),
    "ClusterRoleBinding": ("*rbacv1.ClusterRoleBinding", "*rbacv1ac.ClusterRoleBindingApplyConfiguration", "rbacv1ensure.EnsureClusterRoleBinding"),
}


def sig(kind):
    typ, ac, _ = KINDS[kind]
    return ("func(\n\t\tcontext.Context,\n\t\tclient.Client,\n\t\tclient.Object,\n\t\t%s,\n\t\t...ssaensure.ApplyOption,\n\t) (%s, ssaensure.Result, error)" % (ac, typ))


def sub(s, old, new, count=1):
    if s.count(old) < count:
        sys.exit("kargo-seams: not found (is this ac76edede after generate and vet -fix?):\n" + old)
    return s.replace(old, new)


s = open(P).read()
# Imports.
s = sub(s, '\t"github.com/akuity/kargo/pkg/logging"\n',
        '\t"github.com/akuity/kargo/pkg/logging"\n'
        '\tcorev1ensure "github.com/akuity/kargo/pkg/ssa/core/v1/ensure"\n'
        '\trbacv1ensure "github.com/akuity/kargo/pkg/ssa/rbac/v1/ensure"\n'
        '\tssaensure "github.com/ssagen/ssagen/ensure"\n'
        '\tcorev1ac "k8s.io/client-go/applyconfigurations/core/v1"\n'
        '\trbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"\n')
# The seams: fields and defaults.
for kind in KINDS:
    s = sub(s, "\tcreate%sFn func(\n\t\tcontext.Context,\n\t\tclient.Object,\n\t\t...client.CreateOption,\n\t) error\n" % kind,
            "\tensure%sFn %s\n" % (kind, sig(kind)))
    s = sub(s, "\tr.create%sFn = r.client.Create\n" % kind, "\tr.ensure%sFn = %s\n" % (kind, KINDS[kind][2]))

# ensureSystemPermissions: a range over RoleBinding values, Create → AlreadyExists → Update.
s = re.sub(r'\troleBindings := \[\]rbacv1\.RoleBinding\{\n(.*?)\n\t\}\n\tfor _, roleBinding := range roleBindings \{\n',
           lambda m: '\troleBindings := []*rbacv1ac.RoleBindingApplyConfiguration{\n'
           '\t\trbacv1ac.RoleBinding("kargo-project-admin", project.Name).\n'
           '\t\t\tWithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName("kargo-project-admin")).\n'
           '\t\t\tWithSubjects(\n'
           '\t\t\t\trbacv1ac.Subject().WithKind("ServiceAccount").WithName("kargo-api").WithNamespace(r.cfg.KargoNamespace),\n'
           '\t\t\t\trbacv1ac.Subject().WithKind("ServiceAccount").WithName("kargo-admin").WithNamespace(r.cfg.KargoNamespace),\n'
           '\t\t\t),\n'
           '\t\trbacv1ac.RoleBinding("kargo-project-secrets-reader", project.Name).\n'
           '\t\t\tWithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(projectSecretsReaderClusterRoleName)).\n'
           '\t\t\tWithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName("kargo-external-webhooks-server").WithNamespace(r.cfg.KargoNamespace)),\n'
           '\t}\n\tfor _, roleBinding := range roleBindings {\n',
           s, count=1, flags=re.S)
s = sub(s, '''		rbLogger := logger.WithValues("roleBinding", roleBinding.Name)
		if err := r.createRoleBindingFn(ctx, &roleBinding); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf(
					"error creating RoleBinding %q in Project namespace %q: %w",
					roleBinding.Name, project.Name, err,
				)
			}
			if err = r.client.Update(ctx, &roleBinding); err != nil {
				return fmt.Errorf(
					"error updating existing RoleBinding %q in Project namespace %q: %w",
					roleBinding.Name, project.Name, err,
				)
			}
			rbLogger.Debug("updated RoleBinding")
''', '''		rbLogger := logger.WithValues("roleBinding", *roleBinding.Name)
		if _, res, err := r.ensureRoleBindingFn(ctx, r.client, nil, roleBinding, ssaensure.NoOwner()); err != nil {
			return fmt.Errorf(
				"error creating RoleBinding %q in Project namespace %q: %w",
				*roleBinding.Name, project.Name, err,
			)
		} else if res != ssaensure.Created {
			rbLogger.Debug("updated RoleBinding")
''')

# ensureDefaultUserRoles: create-ignore sites become CreateOnly applies
# (created when missing, never overwritten, no request once cached).
s = sub(s, '''		if err := r.createServiceAccountFn(
			ctx,
			&corev1.ServiceAccount{
				ObjectMeta: metav1.ObjectMeta{
					Name:        saName,
					Namespace:   project.Name,
					Annotations: saAnnotations,
				},
			},
		); err != nil {
			if apierrors.IsAlreadyExists(err) {
				saLogger.Debug("ServiceAccount already exists in project namespace")
				continue
			}
			return fmt.Errorf(''', '''		_, res, err := r.ensureServiceAccountFn(
			ctx, r.client, nil,
			corev1ac.ServiceAccount(saName, project.Name).WithAnnotations(saAnnotations),
			ssaensure.NoOwner(), ssaensure.CreateOnly(),
		)
		if err == nil && res != ssaensure.Created {
			saLogger.Debug("ServiceAccount already exists in project namespace")
			continue
		}
		if err != nil {
			return fmt.Errorf(''')
s = sub(s, '''		if err := r.createRoleFn(ctx, role); err != nil {
			if apierrors.IsAlreadyExists(err) {
				roleLogger.Debug("Role already exists in project namespace")
				continue
			}
			return fmt.Errorf(''', '''		_, res, err := r.ensureRoleFn(ctx, r.client, nil, roleApplyConfiguration(role), ssaensure.NoOwner(), ssaensure.CreateOnly())
		if err == nil && res != ssaensure.Created {
			roleLogger.Debug("Role already exists in project namespace")
			continue
		}
		if err != nil {
			return fmt.Errorf(''')
s = sub(s, '''		if err := r.createRoleBindingFn(
			ctx,
			&rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{
					Name:      rbName,
					Namespace: project.Name,
					Annotations: map[string]string{
						rbacapi.AnnotationKeyManaged: rbacapi.AnnotationValueTrue,
					},
				},
				RoleRef: rbacv1.RoleRef{
					APIGroup: rbacv1.GroupName,
					Kind:     "Role",
					Name:     rbName,
				},
				Subjects: []rbacv1.Subject{
					{
						Kind:      "ServiceAccount",
						Name:      rbName,
						Namespace: project.Name,
					},
				},
			},
		); err != nil {
			if apierrors.IsAlreadyExists(err) {
				rbLogger.Debug("RoleBinding already exists in project namespace")
				continue
			}
			return fmt.Errorf(''', '''		_, res, err := r.ensureRoleBindingFn(
			ctx, r.client, nil,
			rbacv1ac.RoleBinding(rbName, project.Name).
				WithAnnotations(map[string]string{rbacapi.AnnotationKeyManaged: rbacapi.AnnotationValueTrue}).
				WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("Role").WithName(rbName)).
				WithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName(rbName).WithNamespace(project.Name)),
			ssaensure.NoOwner(), ssaensure.CreateOnly(),
		)
		if err == nil && res != ssaensure.Created {
			rbLogger.Debug("RoleBinding already exists in project namespace")
			continue
		}
		if err != nil {
			return fmt.Errorf(''')
s = sub(s, '''	if err := r.createClusterRoleFn(
		ctx,
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: crName},
			Rules: []rbacv1.PolicyRule{{
				APIGroups:     []string{kargoapi.GroupVersion.Group},
				Resources:     []string{"projects"},
				ResourceNames: []string{project.Name},
				Verbs:         []string{"delete", "update"},
			}},
		},
	); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("error creating ClusterRole %q: %w", crName, err)
		}
		crLogger.Debug("ClusterRole already exists")
	}''', '''	if _, res, err := r.ensureClusterRoleFn(
		ctx, r.client, nil,
		rbacv1ac.ClusterRole(crName).WithRules(rbacv1ac.PolicyRule().
			WithAPIGroups(kargoapi.GroupVersion.Group).
			WithResources("projects").
			WithResourceNames(project.Name).
			WithVerbs("delete", "update")),
		ssaensure.NoOwner(), ssaensure.CreateOnly(),
	); err != nil {
		return fmt.Errorf("error creating ClusterRole %q: %w", crName, err)
	} else if res != ssaensure.Created {
		crLogger.Debug("ClusterRole already exists")
	}''')
s = sub(s, '''	if err := r.createClusterRoleBindingFn(
		ctx,
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: crbName},
			RoleRef: rbacv1.RoleRef{
				APIGroup: rbacv1.GroupName,
				Kind:     "ClusterRole",
				Name:     crName,
			},
			Subjects: []rbacv1.Subject{{
				Kind:      "ServiceAccount",
				Name:      adminRoleName,
				Namespace: project.Name,
			}},
		},
	); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("error creating ClusterRoleBinding %q: %w", crName, err)
		}
		crbLogger.Debug("ClusterRoleBinding already exists")
	}''', '''	if _, res, err := r.ensureClusterRoleBindingFn(
		ctx, r.client, nil,
		rbacv1ac.ClusterRoleBinding(crbName).
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(crName)).
			WithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName(adminRoleName).WithNamespace(project.Name)),
		ssaensure.NoOwner(), ssaensure.CreateOnly(),
	); err != nil {
		return fmt.Errorf("error creating ClusterRoleBinding %q: %w", crName, err)
	} else if res != ssaensure.Created {
		crbLogger.Debug("ClusterRoleBinding already exists")
	}''')
# The roles are typed (contributors append typed rules): each becomes its
# apply configuration field by field, so no zero value claims a field.
s += '''
// roleApplyConfiguration is the apply configuration of a Role built in
// this package: its name, namespace, annotations and rules, nothing else.
func roleApplyConfiguration(role *rbacv1.Role) *rbacv1ac.RoleApplyConfiguration {
	ac := rbacv1ac.Role(role.Name, role.Namespace).WithAnnotations(role.Annotations)
	for _, rule := range role.Rules {
		ac.WithRules(rbacv1ac.PolicyRule().
			WithAPIGroups(rule.APIGroups...).
			WithResources(rule.Resources...).
			WithResourceNames(rule.ResourceNames...).
			WithNonResourceURLs(rule.NonResourceURLs...).
			WithVerbs(rule.Verbs...))
	}
	return ac
}
'''
open(P, "w").write(s)

# The tests: the new seams where the old ones were set. What a stub
# returned maps onto what the helper returns: an error stays the error,
# AlreadyExists becomes an apply that found the object as desired, nil a
# creation. The Update of an existing RoleBinding is gone (the apply does
# it): its two cases go.
t = open(T).read()
t = sub(t, '\t"sigs.k8s.io/controller-runtime/pkg/client/interceptor"\n',
        '\t"sigs.k8s.io/controller-runtime/pkg/client/interceptor"\n\n\tssaensure "github.com/ssagen/ssagen/ensure"\n'
        '\tcorev1ac "k8s.io/client-go/applyconfigurations/core/v1"\n\trbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"\n')
for kind in KINDS:
    t = t.replace("require.NotNil(t, r.create%sFn)" % kind, "require.NotNil(t, r.ensure%sFn)" % kind)

def stub(m):
    kind, params, body = m.group(1), m.group(2), m.group(3)
    typ, ac, _ = KINDS[kind]
    ind = m.group(0)[:0]
    named = "obj client.Object" in params
    head = "ensure%sFn: func(\n" % kind
    if named:
        head += "\t\t\t\t\t_ context.Context,\n\t\t\t\t\t_ client.Client,\n\t\t\t\t\t_ client.Object,\n\t\t\t\t\tdesired %s,\n\t\t\t\t\t_ ...ssaensure.ApplyOption,\n" % ac
    else:
        head += "\t\t\t\t\tcontext.Context,\n\t\t\t\t\tclient.Client,\n\t\t\t\t\tclient.Object,\n\t\t\t\t\t%s,\n\t\t\t\t\t...ssaensure.ApplyOption,\n" % ac
    head += "\t\t\t\t) (%s, ssaensure.Result, error) {" % typ
    b = body
    b = re.sub(r'return errors\.New\((.*?)\)\n', r'return nil, "", errors.New(\1)\n', b + "\n")
    b = b.replace('return apierrors.NewAlreadyExists(schema.GroupResource{}, "")\n', 'return nil, ssaensure.Unchanged, nil\n')
    b = re.sub(r'return nil\n', 'return nil, ssaensure.Created, nil\n', b)
    b = b[:-1]
    if named and kind == "ServiceAccount":
        b = b.replace("sa, ok := obj.(*corev1.ServiceAccount)\n", "")
        b = re.sub(r"\n\s*require\.True\(t, ok\)", "", b, count=1)
        b = b.replace("sa.Annotations[rbacapi.AnnotationKeyOIDCClaims]", "desired.Annotations[rbacapi.AnnotationKeyOIDCClaims]")
    if named and kind == "Role":
        b = b.replace("role, ok := obj.(*rbacv1.Role)\n", "")
        b = re.sub(r"\n\s*require\.True\(t, ok\)", "", b, count=1)
        b = b.replace("createdRoles = append(createdRoles, role)", "createdRoles = append(createdRoles, roleFrom(desired))")
    return head + b + "\n\t\t\t\t},"

t = re.sub(r'create(ServiceAccount|Role|RoleBinding|ClusterRole|ClusterRoleBinding)Fn: func\((.*?)\) error \{(.*?)\n\t*\},', stub, t, flags=re.S)
# The two cases of the Update on an existing RoleBinding.
t = re.sub(r'\t\t\{\n\t\t\tname: "error updating existing role binding",.*?\n\t\t\},\n\t\t\{\n\t\t\tname: "success updating existing role binding",.*?\n\t\t\},\n',
           lambda m: '''		{
			name: "role binding found as desired",
			reconciler: &reconciler{
				ensureRoleBindingFn: func(
					context.Context,
					client.Client,
					client.Object,
					*rbacv1ac.RoleBindingApplyConfiguration,
					...ssaensure.ApplyOption,
				) (*rbacv1.RoleBinding, ssaensure.Result, error) {
					return nil, ssaensure.Unchanged, nil
				},
			},
			assertions: func(t *testing.T, err error) {
				require.NoError(t, err)
			},
		},
''', t, count=1, flags=re.S)
t = sub(t, 'import (\n', 'import (\n\t"encoding/json"\n')
t += '''
// roleFrom is the Role an apply configuration describes, for the
// assertions written against Roles.
func roleFrom(ac *rbacv1ac.RoleApplyConfiguration) *rbacv1.Role {
	b, _ := json.Marshal(ac)
	role := &rbacv1.Role{}
	_ = json.Unmarshal(b, role)
	return role
}
'''
open(T, "w").write(t)

# The two sites -fix rewrote once their tests were moved
# (ensureControllerPermissions of both reconcilers): their tests injected
# errors into Create and Update; the write is now one apply, a Patch. The
# error of a failed apply takes the create path's message, so the case of
# the Update of an existing RoleBinding now expects that message.
CREATE = """					Create: func(
						context.Context,
						client.WithWatch,
						client.Object,
						...client.CreateOption,
					) error {"""
UPDATE = """					Update: func(
						context.Context,
						client.WithWatch,
						client.Object,
						...client.UpdateOption,
					) error {
						return fmt.Errorf("something went wrong")
					},
				}).Build(),
			assertions: func(t *testing.T, _ client.Client, err error) {
				require.ErrorContains(t, err, "error updating existing RoleBinding")"""
PATCH = """					Patch: func(
						context.Context,
						client.WithWatch,
						client.Object,
						client.Patch,
						...client.PatchOption,
					) error {"""
for path, fn in [(T, "func TestReconciler_ensureControllerPermissions"), (S, "func TestEnsureControllerPermissions")]:
    src = open(path).read()
    i = src.index(fn)
    j = src.index("\nfunc ", i + 10)
    body = sub(src[i:j], CREATE, PATCH)
    body = sub(body, UPDATE, UPDATE.replace("""					Update: func(
						context.Context,
						client.WithWatch,
						client.Object,
						...client.UpdateOption,
					) error {""", PATCH).replace("error updating existing RoleBinding", "error creating RoleBinding"))
    open(path, "w").write(src[:i] + body + src[j:])
