package ossiectl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ossie-dev/ossie/catalog"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/connect"
	"github.com/ossie-dev/ossie/engine/postgres"
)

// readGlue lists the selected Glue tables.
func (e *env) readGlue(ctx context.Context, f initFlags) (*initSource, error) {
	show, done := e.progress()
	var sdkLog io.Writer
	if f.verbose {
		sdkLog = e.stderr
	}
	tables, err := catalog.ListGlue(ctx, catalog.GlueOptions{
		Region: f.region, Profile: f.profile, Endpoint: f.endpoint,
		CatalogID: f.catalogID, CatalogName: f.catalog,
		Databases: f.databases, Tables: f.tables,
		Progress: func(db string, n int) { show("Glue database "+db, n) },
		SDKLog:   sdkLog,
	})
	done()
	if err != nil {
		return nil, glueFailure(err)
	}
	dbs := catalog.SchemaNames(tables)
	origin := "Glue database(s) " + joinNames(dbs)
	if f.catalog != "" {
		origin += " (engine catalog " + f.catalog + ")"
	}
	return &initSource{tables: tables, typeSystem: "Glue", origin: origin, fallbackName: "glue"}, nil
}

// glueFailure gives a failure to read Glue its problem code (OSS5065-5068)
// and exit code: 3 when the endpoint did not answer, 1 otherwise.
func glueFailure(err error) error {
	var ce *catalog.Error
	if !errors.As(err, &ce) {
		return err
	}
	code, exit := compiler.CodeGlueFailed, ExitProblems
	switch ce.Kind {
	case catalog.Denied:
		code = compiler.CodeGlueDenied
	case catalog.NotFound:
		code = compiler.CodeGlueNotFound
	case catalog.Unreachable:
		code, exit = compiler.CodeGlueUnreachable, ExitUnreachable
	}
	return &exitError{code: exit, message: fmt.Sprintf("error %s: %v", code, err)}
}

// readEngine opens the engine through engine/connect (the same flags and
// credential rules as query, serve, the server and the operator) and lists
// the selected tables.
func (e *env) readEngine(ctx context.Context, f initFlags) (*initSource, error) {
	opts := catalog.EngineOptions{Kind: f.engineKind, Catalog: f.catalog, Schemas: f.schemas, Tables: f.tables}
	var origin, fallback string
	co := connect.Options{Engine: f.engineKind, DSNEnv: f.dsnEnv, DSNFile: f.dsnFile, PasswordFile: f.passwordFile, AllowRead: f.allowRead}
	next := "check " + dsnWhere(f.dsnEnv, f.dsnFile)
	switch f.engineKind {
	case catalog.KindDuckDB:
		if _, err := os.Stat(f.duckdbFile); err != nil {
			return nil, failf("cannot read the DuckDB file: %v; check --duckdb", err)
		}
		// Read-only: drafting never writes to the database, and a missing
		// file must not be created.
		co.DuckDBPath = f.duckdbFile + "?access_mode=READ_ONLY"
		next = "check that --duckdb names a DuckDB database file that no other process holds open for writing"
		origin = "DuckDB file " + filepath.Base(f.duckdbFile)
		fallback = strings.TrimSuffix(filepath.Base(f.duckdbFile), filepath.Ext(f.duckdbFile))
	case catalog.KindPostgres:
		origin = "PostgreSQL"
	case catalog.KindTrino:
		if opts.Catalog == "" {
			opts.Catalog = dsnCatalog(f)
		}
		co.Catalog = opts.Catalog
		origin = "Trino catalog " + opts.Catalog
		fallback = opts.Catalog
	}
	if err := co.Check(); err != nil {
		return nil, usagef("%v", err)
	}
	if err := preflight(ctx, f.engineKind, f.dsnEnv, f.dsnFile); err != nil {
		return nil, err
	}
	eng, err := connect.Open(ctx, co)
	if err != nil {
		return nil, engineOpenError(err, next)
	}
	defer eng.Close()
	tables, err := catalog.ListEngine(ctx, eng, opts)
	if err != nil {
		return nil, err
	}
	if f.engineKind == catalog.KindPostgres {
		origin = "PostgreSQL schema(s) " + joinNames(catalog.SchemaNames(tables))
	}
	return &initSource{tables: tables, typeSystem: opts.TypeSystem(), origin: origin, fallbackName: fallback}, nil
}

// dsnCatalog reads the catalog parameter of a Trino DSN ("" when none or
// unreadable: ListEngine then asks for --catalog).
func dsnCatalog(f initFlags) string {
	dsn, err := engine.ResolveDSN("", f.dsnEnv, f.dsnFile)
	if err != nil {
		return ""
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	return u.Query().Get("catalog")
}

// engineOpenError classifies a failure to open an engine; messages from
// the engine packages never contain the DSN or password.
func engineOpenError(err error, next string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("no answer from the engine within --timeout (%v); %s and that the server is running, then retry", err, next)}
	}
	if errors.Is(err, postgres.ErrAuthFailed) {
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("%v; %s, then retry", err, next)}
	}
	if errors.Is(err, engine.ErrUnavailable) {
		return &exitError{code: ExitUnreachable, message: fmt.Sprintf("%v; %s and that the server is running, then retry", err, next)}
	}
	return failf("%v; %s", err, next)
}
