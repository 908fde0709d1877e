package catalog

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// GlueOptions say which Glue Data Catalog to read and what to select.
type GlueOptions struct {
	// Region and Profile override the standard AWS configuration chain
	// (AWS_REGION / AWS_PROFILE, ~/.aws/config, ...); empty: the chain
	// decides. Credentials always come from the chain.
	Region, Profile string
	// Endpoint overrides the Glue endpoint URL (also settable with the
	// chain's AWS_ENDPOINT_URL_GLUE / AWS_ENDPOINT_URL).
	Endpoint string
	// CatalogID is the Glue catalog to read (an AWS account id); empty:
	// the caller's account.
	CatalogID string
	// CatalogName is the name under which the query engine sees this
	// Glue catalog (Athena: awsdatacatalog; Trino: the catalog configured
	// with hive.metastore=glue). It becomes the first part of each
	// source; empty leaves it out (database.table).
	CatalogName string
	// Databases and Tables are glob patterns (path.Match, case-insensitive);
	// a table pattern containing '.' matches database.table. Empty: all.
	Databases, Tables []string
	// Progress, when set, is called after each page of tables with the
	// database and the number of tables read from it so far.
	Progress func(database string, tables int)
	// SDKLog receives the AWS SDK's own log lines (e.g. "falling back to
	// IMDSv1" while the credential chain probes instance metadata); nil
	// discards them, so they never reach the process's stderr unasked.
	SDKLog io.Writer
}

// ListGlue reads the selected tables of a Glue Data Catalog with the
// GetDatabases and GetTables APIs (all pages), sorted by database, each
// database's tables in the order Glue lists them. Columns are the table's StorageDescriptor columns followed by its
// partition keys. Failures are *Error: Unreachable when the endpoint does
// not answer, Denied for missing or refused credentials
// (AccessDeniedException, UnrecognizedClientException, ..., or any HTTP
// 401/403 whose body is not Glue's JSON error, as moto's IAM refusals are:
// the code of an AWS XML error body is quoted), NotFound when
// a database pattern without wildcards names no database or nothing
// matched.
func ListGlue(ctx context.Context, opts GlueOptions) ([]Table, error) {
	var logger logging.Logger = logging.Nop{}
	if opts.SDKLog != nil {
		logger = logging.NewStandardLogger(opts.SDKLog)
	}
	loadOpts := []func(*config.LoadOptions) error{config.WithLogger(logger)}
	if opts.Region != "" {
		loadOpts = append(loadOpts, config.WithRegion(opts.Region))
	}
	if opts.Profile != "" {
		loadOpts = append(loadOpts, config.WithSharedConfigProfile(opts.Profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, &Error{Kind: Problem, Message: "cannot load the AWS configuration: " + err.Error(), Next: "check AWS_PROFILE/--profile and ~/.aws/config", Err: err}
	}
	if cfg.Region == "" {
		return nil, &Error{Kind: Problem, Message: "no AWS region is configured", Next: "set AWS_REGION, a region in your AWS profile, or pass --region"}
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return nil, &Error{Kind: Denied, Message: "no AWS credentials found: " + firstLine(err.Error()), Next: "set AWS_PROFILE (or --profile) to a profile with credentials, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (a local --endpoint needs them too: requests are signed); nothing was sent to Glue", Err: err}
	}
	client := glue.NewFromConfig(cfg, func(o *glue.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
	})
	where := "the Glue endpoint of region " + cfg.Region
	if opts.Endpoint != "" {
		where = "the Glue endpoint " + opts.Endpoint
	}

	dbs, err := glueDatabases(ctx, client, opts)
	if err != nil {
		return nil, glueError(err, where, "")
	}
	var out []Table
	for _, db := range dbs {
		in := &glue.GetTablesInput{DatabaseName: aws.String(db)}
		if opts.CatalogID != "" {
			in.CatalogId = aws.String(opts.CatalogID)
		}
		p := glue.NewGetTablesPaginator(client, in)
		n := 0
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, glueError(err, where, db)
			}
			for _, gt := range page.TableList {
				n++
				name := aws.ToString(gt.Name)
				if !matchTable(opts.Tables, db, name) {
					continue
				}
				out = append(out, glueTable(opts.CatalogName, db, gt))
			}
			if opts.Progress != nil {
				opts.Progress(db, n)
			}
		}
	}
	if len(out) == 0 {
		return nil, &Error{Kind: NotFound, Message: fmt.Sprintf("no table matched in %d Glue database(s) (%s)", len(dbs), strings.Join(dbs, ", ")), Next: "check --database and --tables (glob patterns such as 'sales_*' or 'sales.fact_*')"}
	}
	return out, nil
}

// glueDatabases lists the database names that match opts.Databases, sorted.
func glueDatabases(ctx context.Context, client *glue.Client, opts GlueOptions) ([]string, error) {
	in := &glue.GetDatabasesInput{}
	if opts.CatalogID != "" {
		in.CatalogId = aws.String(opts.CatalogID)
	}
	var all []string
	p := glue.NewGetDatabasesPaginator(client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range page.DatabaseList {
			all = append(all, aws.ToString(d.Name))
		}
	}
	slices.Sort(all)
	if len(opts.Databases) == 0 {
		return all, nil
	}
	var out []string
	for _, db := range all {
		if matchAny(opts.Databases, db) {
			out = append(out, db)
		}
	}
	for _, pat := range opts.Databases {
		if !strings.ContainsAny(pat, "*?[") && !slices.ContainsFunc(out, func(db string) bool { return strings.EqualFold(db, pat) }) {
			return nil, &Error{Kind: NotFound, Message: fmt.Sprintf("the Glue catalog has no database %q (it has %s)", pat, listSome(all, 10)), Next: "fix --database"}
		}
	}
	return out, nil
}

func glueTable(catalogName, db string, gt gluetypes.Table) Table {
	t := Table{Catalog: catalogName, Schema: db, Name: aws.ToString(gt.Name), Comment: aws.ToString(gt.Description)}
	if gt.StorageDescriptor != nil {
		for _, c := range gt.StorageDescriptor.Columns {
			t.Columns = append(t.Columns, Column{Name: aws.ToString(c.Name), Type: aws.ToString(c.Type), Comment: aws.ToString(c.Comment)})
		}
	}
	for _, c := range gt.PartitionKeys {
		t.Columns = append(t.Columns, Column{Name: aws.ToString(c.Name), Type: aws.ToString(c.Type), Comment: aws.ToString(c.Comment), Partition: true})
	}
	return t
}

// glueError classifies an SDK error. The SDK's messages carry no
// credentials (the signature, never the secret, is on the wire).
func glueError(err error, where, db string) error {
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		msg := fmt.Sprintf("Glue refused the request: %s: %s", api.ErrorCode(), api.ErrorMessage())
		switch api.ErrorCode() {
		case "AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException",
			"SignatureDoesNotMatch", "ExpiredTokenException", "InvalidClientTokenId", "MissingAuthenticationTokenException":
			return &Error{Kind: Denied, Message: msg, Next: deniedNext, Err: err}
		case "EntityNotFoundException":
			return &Error{Kind: NotFound, Message: fmt.Sprintf("Glue database %q not found: %s", db, api.ErrorMessage()), Next: "check --database and --catalog-id", Err: err}
		}
		return &Error{Kind: Problem, Message: msg, Next: "retry later; if it persists, check the Glue service health and your quotas", Err: err}
	}
	// An endpoint that refuses the credentials with a body that is not
	// the JSON error of the Glue protocol (moto's server mode sends IAM
	// refusals as XML; a proxy may send HTML) still refuses them.
	var resp *smithyhttp.ResponseError
	if errors.As(err, &resp) && (resp.HTTPStatusCode() == http.StatusUnauthorized || resp.HTTPStatusCode() == http.StatusForbidden) {
		msg := fmt.Sprintf("Glue refused the request with HTTP %d", resp.HTTPStatusCode())
		if code, text := xmlErrorInfo(err); code != "" {
			msg = fmt.Sprintf("Glue refused the request: %s: %s", code, text)
		}
		return &Error{Kind: Denied, Message: msg, Next: deniedNext, Err: err}
	}
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: Unreachable, Message: fmt.Sprintf("cannot reach %s: %s", where, firstLine(rootCause(err).Error())), Next: "check the network, --region and --endpoint (or AWS_ENDPOINT_URL_GLUE), then retry", Err: err}
	}
	return &Error{Kind: Problem, Message: "reading the Glue catalog failed: " + firstLine(err.Error()), Next: "check --region, --endpoint and the AWS configuration", Err: err}
}

const deniedNext = "check the AWS credentials in use (AWS_PROFILE, aws sts get-caller-identity) and that they allow glue:GetDatabases and glue:GetTables"

// xmlErrorInfo reads the code and message of an AWS XML error body
// (<ErrorResponse><Error><Code>...) that the SDK could not decode as JSON;
// empty when the body is something else.
func xmlErrorInfo(err error) (code, message string) {
	var de *smithy.DeserializationError
	if !errors.As(err, &de) {
		return "", ""
	}
	var body struct {
		Code    string `xml:"Errors>Error>Code"`
		Message string `xml:"Errors>Error>Message"`
	}
	if xml.Unmarshal(de.Snapshot, &body) != nil {
		return "", ""
	}
	return body.Code, body.Message
}

func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// matchAny reports whether name matches one of the glob patterns
// (path.Match syntax, case-insensitive).
func matchAny(patterns []string, name string) bool {
	name = strings.ToLower(name)
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToLower(p), name); ok {
			return true
		}
	}
	return false
}

// matchTable applies table patterns: one with a '.' matches schema.table,
// the others the table name alone. No patterns: every table.
func matchTable(patterns []string, schema, table string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		subject := table
		if strings.Contains(p, ".") {
			subject = schema + "." + table
		}
		if matchAny([]string{p}, subject) {
			return true
		}
	}
	return false
}

// ValidPatterns reports the first malformed glob pattern (path.Match
// syntax), so the CLI can refuse it as a usage error before any I/O.
func ValidPatterns(patterns []string) error {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("bad pattern %q: %v", p, err)
		}
	}
	return nil
}
