#!/usr/bin/env python3
"""The hand rewrite of network-services-operator's HTTPProxy controller
(a4ae50b) that docs/seeds.md explains: run by hack/seeds.sh in the
operator's checkout, after `ssagen generate` wrote internal/ssa.

ssagen vet -fix rewrites the HTTPRouteFilter, HTTPRoute and EndpointSlice
sites and declines the Gateway's, whose mutate function carries the
listener hostnames forward from the live object. As docs/vet.md
("CreateOrUpdate by hand") says, this script builds its apply
configuration from the desired object and calls the generated helper:

- the desired object is carried into its apply configuration by JSON
  (applyConfigurationOf): the controller computed the whole spec and
  CreateOrUpdate already replaced it whole (`gateway.Spec = desired.Spec`),
  so the apply claims the same fields it wrote before; its status is left
  out;
- the conflict check of each mutate function (hasControllerConflict ->
  AlreadyExists) is the helper's ErrAlreadyControlled, handled as before;
- the Gateway's listener hostname carry-forward goes: the hostnames the
  gateway controller writes are its fields, which an apply that leaves
  them out never touches;
- the status Update in the deferred function, which -fix makes
  EnsureHTTPProxyStatus of the converted status (a status apply, no
  resourceVersion, skipped when nothing changed), goes through the
  cluster's ensure.Client;
- the helpers write through one ensure.Client per cluster, which the
  reconciler keeps by cluster name (multicluster-runtime hands it a
  cluster per request): the memory of its applies, so an unchanged child
  costs nothing even where the cache shows no managedFields (the fake
  client of the operator's own tests).

Every edit checks that the text it replaces is there, and fails loudly
otherwise.
"""
import sys

from edits import Source

src = Source("internal/controller/httpproxy_controller.go", "nso-rewrite")
replace, replace_between = src.replace, src.replace_between


MOD = "go.datum.net/network-services-operator/internal/ssa"
replace('''import (
	"context"
	"errors"
''', f'''import (
	"context"
	"encoding/json"
	"errors"
''')
replace('''	"net/url"
''', '''	"net/url"
	"reflect"
''')
replace('''	"strings"

	envoygatewayv1alpha1 "github.com/envoyproxy/gateway/api/v1alpha1"
''', '''	"strings"
	"sync"

	envoygatewayv1alpha1 "github.com/envoyproxy/gateway/api/v1alpha1"
''')
replace('''	networkingv1alpha "go.datum.net/network-services-operator/api/v1alpha"
''', f'''	networkingv1alpha "go.datum.net/network-services-operator/api/v1alpha"
	gatewayv1ac "{MOD}/apis/v1"
	gatewayv1ensure "{MOD}/apis/v1/ensure"
''')
if 'ssaensure "github.com/ssagen/ssagen/ensure"' not in src.text:
    sys.exit("nso-rewrite: run after ssagen vet -fix, which imports the runtime as ssaensure")

# One ensure.Client per cluster, kept by the reconciler: the memory of its
# applies, so an unchanged child costs no request (docs/ensure.md,
# "Several clusters").
replace('''	DownstreamCluster cluster.Cluster
}
''', '''	DownstreamCluster cluster.Cluster

	// ensureClients holds, per cluster name, the ensure.Client over the
	// cluster's client: the memory of the helpers' applies.
	ensureClients sync.Map // string → *ssaensure.Client
}

// ensureClient is the ensure.Client over the client of the cluster
// engaged as name: one per cluster name, so one cluster's objects never
// vouch for another's. It is made anew when the name comes back with
// another client, where clients can be compared (a pointer, as a
// cluster's client is); a client that cannot be (a struct value, as
// controller-runtime v0.22's interceptor client is) is taken to be the
// one the name was engaged with.
func (r *HTTPProxyReconciler) ensureClient(name string, cl cluster.Cluster) *ssaensure.Client {
	c := cl.GetClient()
	if v, ok := r.ensureClients.Load(name); ok {
		if ec := v.(*ssaensure.Client); !otherClient(ec.Unwrap(), c) {
			return ec
		}
	}
	ec := ssaensure.NewClient(c)
	r.ensureClients.Store(name, ec)
	return ec
}

// otherClient reports whether b is known to be another client than a.
func otherClient(a, b client.Client) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb {
		return true
	}
	return ta != nil && ta.Comparable() && a != b
}
''')
replace('''	cl, err := r.mgr.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return ctrl.Result{}, err
	}
''', '''	cl, err := r.mgr.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return ctrl.Result{}, err
	}
	ec := r.ensureClient(req.ClusterName, cl)
''')

# The status Update in the deferred function: -fix made it
# EnsureHTTPProxyStatus of the converted status through the cluster's plain
# client; the cluster's ensure.Client carries the memory of its applies.
replace('''apiv1alphaensure.EnsureHTTPProxyStatus(ctx, cl.GetClient(), apiv1alphaac.StatusFromHTTPProxy(&httpProxy))''',
        '''apiv1alphaensure.EnsureHTTPProxyStatus(ctx, ec, apiv1alphaac.StatusFromHTTPProxy(&httpProxy))''')


def conflict(kind, name_expr):
    return f'''			programmedCondition.Status = metav1.ConditionFalse
			programmedCondition.Reason = networkingv1alpha.HTTPProxyReasonConflict
			programmedCondition.Message = fmt.Sprintf("Underlying {kind} with the name %q already exists and is owned by a different resource.", {name_expr})
			return ctrl.Result{{}}, nil'''


# The Gateway.
replace_between('''	gateway := desiredResources.gateway.DeepCopy()
''', '''	logger.Info("processed gateway", "name", gateway.Name, "result", result)
''', f'''	gatewayApply, err := applyConfigurationOf(gatewayv1ac.Gateway(desiredResources.gateway.Name, desiredResources.gateway.Namespace), desiredResources.gateway)
	if err != nil {{
		return ctrl.Result{{}}, err
	}}
	gateway, result, err := gatewayv1ensure.EnsureGateway(ctx, ec, &httpProxy, gatewayApply)
	if err != nil {{
		if errors.Is(err, ssaensure.ErrAlreadyControlled) {{
{conflict("Gateway", "desiredResources.gateway.Name")}
		}}
		return ctrl.Result{{}}, fmt.Errorf("failed updating gateway resource: %w", err)
	}}

	logger.Info("processed gateway", "name", gateway.Name, "result", result)
''')

def through_ensure_client(helper):
    """-fix rewrote the site onto helper through the cluster's plain
    client: it goes through the cluster's ensure.Client instead."""
    lines = src.text.split("\n")
    hits = [i for i, l in enumerate(lines) if helper + "(ctx, cl.GetClient()," in l]
    if len(hits) != 1:
        sys.exit("nso-rewrite: expected one -fix'd %s call through cl.GetClient()" % helper)
    lines[hits[0]] = lines[hits[0]].replace(helper + "(ctx, cl.GetClient(),", helper + "(ctx, ec,")
    src.text = "\n".join(lines)


# The HTTPRouteFilters, the HTTPRoute and the EndpointSlices: -fix
# rewrites these sites (the desired copies converted by From<Kind>, the
# controller check as ErrAlreadyControlled, the annotation sync on the
# copy); they then only go through the cluster's ensure.Client.
through_ensure_client("gatewayv1alpha1ensure.EnsureHTTPRouteFilter")
through_ensure_client("apisv1ensure.EnsureHTTPRoute")
through_ensure_client("discoveryv1ensure.EnsureEndpointSlice")

src.append('''
// applyConfigurationOf carries a value this controller computes whole (a
// desired child, the status) into the apply configuration ac, as JSON
// writes it; a child's status is left out, as it is its controller's.
func applyConfigurationOf[T any](ac *T, v any) (*T, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err == nil {
		delete(fields, "status")
		if _, isObject := fields["metadata"]; isObject {
			if b, err = json.Marshal(fields); err != nil {
				return nil, err
			}
		}
	}
	if err := json.Unmarshal(b, ac); err != nil {
		return nil, err
	}
	return ac, nil
}
''')
src.save()
print("nso-rewrite: the Gateway's CreateOrUpdate rewritten; -fix's rewrites of the HTTPProxy controller moved onto the cluster's ensure.Client")
