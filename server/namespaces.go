package server

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// Namespaces are a boundary (issue 13, finding 8): two teams may publish
// models of the same name in their namespaces. Every model of a
// namespaced source is served as /v1/namespaces/{namespace}/models/{name};
// the bare /v1/models/{name} serves a name only while one namespace
// provides it, and is a 409 OSS5013 listing the namespaced paths once two
// do, so no caller silently gets another team's model.

// qualifyByNamespace fills c.qualified and c.ambiguous from the sources
// (the newest source wins within one namespace, as for bare names) and
// drops ambiguous names from the bare index.
func (c *catalog) qualifyByNamespace(sources map[string]*sourceState) {
	c.qualified = map[string]*model{}
	c.ambiguous = map[string][]string{}
	c.namespace = map[*model]string{}
	owner := map[string]*sourceState{}
	for _, st := range sources {
		if st.src.Namespace == "" {
			continue
		}
		for _, m := range st.models {
			k := st.src.Namespace + "/" + m.art.Name
			if cur, ok := owner[k]; !ok || newer(st.src, cur.src) {
				owner[k] = st
				c.qualified[k] = m
				c.namespace[m] = st.src.Namespace
			}
		}
	}
	byName := map[string][]string{}
	for k := range c.qualified {
		_, name, _ := strings.Cut(k, "/")
		byName[name] = append(byName[name], k)
	}
	for name, ks := range byName {
		if len(ks) < 2 {
			continue
		}
		sort.Strings(ks)
		c.ambiguous[name] = ks
		delete(c.models, name)
		c.names = slices.DeleteFunc(c.names, func(n string) bool { return n == name })
	}
}

// lookup finds a bare name, then a namespace/name.
func (c *catalog) lookup(name string) (*model, bool) {
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
func (c *catalog) resolve(ctx context.Context, name string) (string, *Error) {
	ks, ok := c.ambiguous[name]
	if !ok {
		return name, nil
	}
	if id := IdentityFrom(ctx); id != nil && len(id.Namespaces) > 0 {
		var mine []string
		for _, k := range ks {
			if ns, _, _ := strings.Cut(k, "/"); slices.Contains(id.Namespaces, ns) {
				mine = append(mine, k)
			}
		}
		switch len(mine) {
		case 0:
			return name, unknownModel(name, nil)
		case 1:
			return mine[0], nil
		}
		ks = mine
	}
	return name, c.ambiguity(name, ks)
}

// ambiguity is the 409 for a bare name the namespaced models ks provide.
func (c *catalog) ambiguity(name string, ks []string) *Error {
	paths := make([]string, len(ks))
	for i, k := range ks {
		ns, n, _ := strings.Cut(k, "/")
		paths[i] = "/v1/namespaces/" + ns + "/models/" + n
	}
	detail := "several namespaces publish a model named " + quote(echoName(name)) + "; address it by namespace: " + strings.Join(paths, ", ")
	return &Error{Status: http.StatusConflict, Code: compiler.CodeAmbiguousModel, Title: "Model name is ambiguous", Detail: detail,
		Problems: compiler.Problems{{Code: compiler.CodeAmbiguousModel, Severity: compiler.SeverityError, Message: detail}}}
}

// modelPath is the model a request addresses: {model}, or
// {namespace}/{model} on the namespaced routes.
func modelPath(r *http.Request) string {
	if ns := r.PathValue("namespace"); ns != "" {
		return ns + "/" + r.PathValue("model")
	}
	return r.PathValue("model")
}

// inNamespaces reports whether the caller of ctx may read m: callers
// without a namespace list read every model, others only models of their
// namespaces.
func (c *catalog) inNamespaces(ctx context.Context, m *model) bool {
	id := IdentityFrom(ctx)
	if id == nil || len(id.Namespaces) == 0 {
		return true
	}
	ns, ok := c.namespace[m]
	return ok && slices.Contains(id.Namespaces, ns)
}
