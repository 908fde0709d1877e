package ossiectl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
)

// fileMetadata answers list from a model file through an in-process
// server without an engine: its VisibleModels and DescribeModel are the
// code behind GET /v1/models and GET /v1/models/{model}.
type fileMetadata struct {
	srv *server.Server
	id  *auth.Identity // --role: list as that caller; nil: ungoverned
}

func (e *env) localMetadata(name string, opts compiler.CompileOptions) (*fileMetadata, error) {
	arts, err := e.loadFile(name, opts)
	if err != nil {
		return nil, err
	}
	c, err := e.gov.caller()
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{Models: arts})
	if err != nil {
		return nil, failf("%v", err)
	}
	l := &fileMetadata{srv: srv}
	if c != nil {
		l.id = &auth.Identity{Name: "ossiectl", Roles: c.Roles, Attributes: c.Attributes}
	}
	return l, nil
}

func (l *fileMetadata) ctx(ctx context.Context) context.Context {
	if l.id != nil {
		return auth.WithIdentity(ctx, l.id)
	}
	return ctx
}

func (l *fileMetadata) models(ctx context.Context) ([]server.ModelSummary, error) {
	return l.srv.VisibleModels(l.ctx(ctx)), nil
}

func (l *fileMetadata) describe(ctx context.Context, m server.ModelSummary) (server.ModelDetail, error) {
	d, err := l.srv.DescribeModel(l.ctx(ctx), m.Name)
	if err != nil {
		return d, failf("%v", err)
	}
	return d, nil
}

// remoteMetadata answers list from a running server's HTTP API.
type remoteMetadata struct {
	base  *url.URL
	token string
}

func newRemoteMetadata(o listOptions) (*remoteMetadata, error) {
	u, err := url.Parse(strings.TrimRight(o.server, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("--server %q: want the server's base URL, e.g. http://127.0.0.1:8080", o.server)
	}
	token, err := o.tokens.read()
	if err != nil {
		return nil, err
	}
	return &remoteMetadata{base: u, token: token}, nil
}

func (r *remoteMetadata) models(ctx context.Context) ([]server.ModelSummary, error) {
	var body struct {
		Models []server.ModelSummary `json:"models"`
	}
	err := r.get(ctx, "/v1/models", &body)
	return body.Models, err
}

func (r *remoteMetadata) describe(ctx context.Context, m server.ModelSummary) (server.ModelDetail, error) {
	path := "/v1/models/" + url.PathEscape(m.Name)
	if m.Namespace != "" {
		path = "/v1/namespaces/" + url.PathEscape(m.Namespace) + "/models/" + url.PathEscape(m.Name)
	}
	var d server.ModelDetail
	err := r.get(ctx, path, &d)
	return d, err
}

// get decodes the JSON answer of GET path into v. A refused request is
// exit 1 with the server's problem (code, title, detail); a server that
// cannot be reached is exit 3.
func (r *remoteMetadata) get(ctx context.Context, path string, v any) error {
	u := r.base.JoinPath(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return failf("%v", err)
	}
	req.Header.Set("Accept", "application/json")
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("cannot reach the server at %s: %v. Next: check --server and that the server is running", r.base, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("reading %s: %v", u, err)}
	}
	if resp.StatusCode != http.StatusOK {
		var p problem.Error
		_ = json.Unmarshal(data, &p)
		msg := fmt.Sprintf("the server refused GET %s: HTTP %d", path, resp.StatusCode)
		if p.Code != "" {
			msg += " " + p.Code + " " + p.Title
			if p.Detail != "" {
				msg += ": " + p.Detail
			}
		}
		if resp.StatusCode == http.StatusUnauthorized {
			msg += ". Next: set OSSIE_TOKEN (or --token-env/--token-file) to a token of the server's tokens file"
		}
		return failf("%s", msg)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return failf("GET %s: the answer is not the server's metadata JSON: %v", path, err)
	}
	return nil
}
