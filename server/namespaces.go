package server

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
)

// Namespaces are a boundary (issue 13, finding 8): two teams may publish
// models of the same name in their namespaces. Every model of a
// namespaced source is served as /v1/namespaces/{namespace}/models/{name};
// the bare /v1/models/{name} serves a name only while one namespace
// provides it, and is a 409 OSS5013 listing the namespaced paths once two
// do, so no caller silently gets another team's model.

// Qualify is the catalog key of model name of namespace: namespace/name,
// or the bare name for model files (no namespace). It is also how a
// caller addresses a model by namespace (the namespaced routes, the MCP
// tools' namespace argument); a bare name several namespaces the caller
// may read publish is 409 OSS5013 there too.
func Qualify(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// splitQualified is the inverse of Qualify.
func splitQualified(k string) (namespace, name string) {
	if ns, n, ok := strings.Cut(k, "/"); ok {
		return ns, n
	}
	return "", k
}

// index fills the catalog's lookups from served (qualified name → the
// model serving it): every model in all; namespaced ones in qualified; a
// bare name in models while one namespace (or a model file) provides it,
// otherwise in ambiguous with the namespace/name of each provider.
func (c *catalog) index(served map[string]*model) {
	c.qualified = map[string]*model{}
	c.ambiguous = map[string][]string{}
	byName := map[string][]string{}
	for k, m := range served {
		c.all = append(c.all, m)
		if m.namespace != "" {
			c.qualified[k] = m
		}
		byName[m.art.Name] = append(byName[m.art.Name], k)
	}
	sort.Slice(c.all, func(i, j int) bool {
		a, b := c.all[i], c.all[j]
		return a.art.Name < b.art.Name || a.art.Name == b.art.Name && a.namespace < b.namespace
	})
	for name, ks := range byName {
		switch m, file := served[name]; {
		case file:
			c.models[name] = m
		case len(ks) == 1:
			c.models[name] = served[ks[0]]
		default:
			sort.Strings(ks)
			c.ambiguous[name] = ks
		}
	}
}

// address is how m is named to a caller: its bare name while that is
// unambiguous, else namespace/name.
func (c *catalog) address(m *model) string {
	if c.models[m.art.Name] == m {
		return m.art.Name
	}
	return Qualify(m.namespace, m.art.Name)
}

// Lookup finds a bare name, then a namespace/name.
func (c *catalog) Lookup(name string) (*model, bool) {
	if m, ok := c.models[name]; ok {
		return m, true
	}
	m, ok := c.qualified[name]
	return m, ok
}

// resolve turns a bare name several namespaces provide into the
// namespace/name of the one namespace the caller is limited to; a caller
// that may read several of them, or none, gets the 409 (none: the unknown
// model, so other namespaces are not revealed).
func (c *catalog) resolve(ctx context.Context, name string) (string, *problem.Error) {
	ks, ok := c.ambiguous[name]
	if !ok {
		return name, nil
	}
	if id := auth.IdentityFrom(ctx); id != nil && len(id.Namespaces) > 0 {
		var mine []string
		for _, k := range ks {
			if ns, _, _ := strings.Cut(k, "/"); slices.Contains(id.Namespaces, ns) {
				mine = append(mine, k)
			}
		}
		switch len(mine) {
		case 0:
			return name, problem.UnknownModel(name, nil)
		case 1:
			return mine[0], nil
		}
		ks = mine
	}
	return name, c.ambiguity(name, ks)
}

// ambiguity is the 409 for a bare name the namespaced models ks provide.
func (c *catalog) ambiguity(name string, ks []string) *problem.Error {
	paths := make([]string, len(ks))
	for i, k := range ks {
		ns, n, _ := strings.Cut(k, "/")
		paths[i] = "/v1/namespaces/" + ns + "/models/" + n
	}
	detail := "several namespaces publish a model named " + problem.Quote(problem.EchoName(name)) + "; address it by namespace: " + strings.Join(paths, ", ")
	return &problem.Error{Status: http.StatusConflict, Code: compiler.CodeAmbiguousModel, Title: "Model name is ambiguous", Detail: detail,
		Problems: compiler.Problems{{Code: compiler.CodeAmbiguousModel, Severity: compiler.SeverityError, Message: detail}}}
}

// inNamespaces reports whether the caller of ctx may read m: callers
// without a namespace list read every model, others only models of their
// namespaces.
func (c *catalog) inNamespaces(ctx context.Context, m *model) bool {
	id := auth.IdentityFrom(ctx)
	if id == nil || len(id.Namespaces) == 0 {
		return true
	}
	return m.namespace != "" && slices.Contains(id.Namespaces, m.namespace)
}
