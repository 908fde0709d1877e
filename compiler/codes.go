package compiler

// Stable problem codes. Never renumber: users grep for them and tools match
// on them. Ranges: 1xxx parsing, 2xxx model validation, 3xxx expressions,
// 4xxx queries, 5xxx execution. docs/problems.md explains each one.
const (
	CodeSyntax             = "OSS1001" // document is not well-formed YAML/JSON
	CodeUnknownKey         = "OSS1002" // key not defined by the Ossie spec at this place
	CodeWrongType          = "OSS1003" // value has the wrong type
	CodeDuplicateKey       = "OSS1004" // the same key twice in one mapping
	CodeMissingKey         = "OSS1005" // a required key is absent
	CodeUnsupportedVersion = "OSS1006" // `version` missing or not one this build reads
	CodeInvalidValue       = "OSS1007" // value outside its enumeration (datatype, source kind)
	CodeSchema             = "OSS1008" // JSON Schema violation not covered by a more specific code
	CodeDocumentTooLarge   = "OSS1020" // document over MaxDocumentBytes
	CodeDocumentTooComplex = "OSS1021" // document or body nests too deep, holds too many values, or a mapping too many keys

	CodeDuplicateName       = "OSS2001" // two datasets/fields/metrics/relationships share a name
	CodeUnknownDataset      = "OSS2002" // a relationship or reference names a dataset that does not exist
	CodeUnknownColumn       = "OSS2003" // a key column is an empty name (other key columns are fields or physical columns)
	CodeColumnCountMismatch = "OSS2004" // from_columns and to_columns differ in length
	CodeNotAKey             = "OSS2005" // to_columns are not the primary key or a unique key of `to`
	CodeAssumedKey          = "OSS2006" // warning: `to` declares no keys; the relationship asserts uniqueness
	CodeJoinGraphNotTree    = "OSS2007" // a cycle of many-to-one relationships (a dataset reaching itself)
	CodeNoPortableDialect   = "OSS2008" // no OSSIE_SQL_2026 or ANSI_SQL entry to translate
	CodeUnknownReference    = "OSS2009" // expression names an unknown dataset, field or metric
	CodeMetricCycle         = "OSS2010" // derived metrics reference each other in a cycle
	CodeDisconnected        = "OSS2011" // a metric reads datasets with no join path between them
	CodeEmpty               = "OSS2012" // required list is empty (models, datasets, dialects)
	CodeInvalidName         = "OSS2013" // name empty, too long (>128) or otherwise unusable
	CodeInvalidSource       = "OSS2014" // dataset source cannot be read as a table path or query
	CodeSelfRelationship    = "OSS2015" // a relationship from a dataset to itself
	CodeGovernanceLeak      = "OSS2030" // a role's rule can be read around: same column through another field or dataset

	// Metric types (metric_type.go, docs/metrics.md).
	CodeMetricTypeSchema      = "OSS2041" // metric type parameters violate schema/metric-type.v1.schema.json
	CodeMetricTypeNotAdditive = "OSS2042" // a windowed metric's expression is not one SUM or COUNT
	CodeMetricTypeRef         = "OSS2043" // a typed metric used where it cannot be: inside a typed metric, next to aggregates, or a semi-additive/conversion inside any metric
	CodeMetricTypeAlong       = "OSS2044" // a semi-additive metric's along field is not a time field of its dataset, or a per field no field of it
	CodeMetricTypeConversion  = "OSS2045" // a conversion's entity or time fields do not fit

	// Rollups (rollup.go, docs/rollups.md).
	CodeRollupSchema            = "OSS2050" // the rollups value violates schema/rollup.v1.schema.json
	CodeRollupDuplicate         = "OSS2051" // two rollups of a model share a name
	CodeRollupMember            = "OSS2052" // a rollup names a metric or dimension that does not exist
	CodeRollupGrain             = "OSS2053" // a rollup's time dimension, partition grain or incremental refresh does not fit
	CodeRollupNotReaggregatable = "OSS2054" // a rollup metric's aggregate cannot be re-aggregated from partial results
	CodeRollupUnjoinable        = "OSS2055" // a rollup dimension no relationship path joins to a dataset a metric reads

	CodeExprSyntax      = "OSS3001" // expression does not parse
	CodeExprNotAllowed  = "OSS3002" // construct outside the bounded grammar (subquery, statement, window in field...)
	CodeExprUnknownFunc = "OSS3003" // function not in the Ossie expression language
	CodeFieldAggregates = "OSS3004" // a field expression aggregates; fields are scalar
	CodeMetricNoAgg     = "OSS3005" // a metric neither aggregates nor combines other metrics
	CodeNestedAggregate = "OSS3006" // an aggregate inside another aggregate
	CodeExprArity       = "OSS3007" // wrong number of arguments for a function
	CodeExprUnsupported = "OSS3008" // a function the target engine cannot compute (docs/engine-support.md)

	CodeBadQuery      = "OSS4001" // query body malformed
	CodeUnknownMetric = "OSS4002" // query names a metric that does not exist
	CodeUnknownMember = "OSS4003" // query names a dimension/field that does not exist
	CodeBadGrain      = "OSS4004" // unknown time grain, or a grain on a non-time dimension
	CodeBadFilter     = "OSS4005" // unknown filter operator or wrong values for it
	CodeBadTimezone   = "OSS4006" // not an IANA time zone name
	CodeBadOrderBy    = "OSS4007" // order_by key is neither a metric nor a dimension
	CodeFanOutNoKey   = "OSS4008" // one-to-many path needs a primary key the dataset does not declare
	CodeBadLimit      = "OSS4009" // negative limit or offset
	CodeUnreachable   = "OSS4010" // a dimension cannot be joined to a metric's dataset
	CodeQueryTooLarge = "OSS4020" // a query over a server limit (filters, values, order keys, dimensions, metrics)

	CodeWindowNoTime = "OSS4060" // a typed metric is queried without a time dimension with a grain
	CodeWindowGrain  = "OSS4061" // the query's grain does not fit the metric type's window
	CodeSemiFanOut   = "OSS4062" // a semi-additive or conversion metric grouped by a member across a one-to-many hop
	CodeConvJoin     = "OSS4063" // a conversion metric grouped or filtered by a member of its event-B dataset
	CodeCompareRange = "OSS4064" // a compare_date_range that does not fit: not a time field, fewer than 2 or more than 12 ranges, a bad range, on two dimensions

	CodeEngine           = "OSS5001" // the engine refused or failed the query
	CodeTimeout          = "OSS5002" // query time limit exceeded or request cancelled
	CodeUnknownModel     = "OSS5003" // no such model is loaded
	CodeTooLarge         = "OSS5004" // request body over the configured limit
	CodeUnauthenticated  = "OSS5005" // no valid credentials for an authenticated server (HTTP 401)
	CodeMethodNotAllowed = "OSS5006" // HTTP method not served on this path (HTTP 405)
	CodeSQLGoverned      = "OSS5007" // SQL preview refused to a governed caller (HTTP 403)
	CodeTooManyQueries   = "OSS5010" // the server's query slots and queue are full (HTTP 429)
	CodeHostRefused      = "OSS5011" // a server without authentication got a non-loopback Host (HTTP 403)
	CodeNotJSON          = "OSS5012" // a server without authentication got a body that is not application/json (HTTP 415)
	CodeAmbiguousModel   = "OSS5013" // two namespaces publish the model name; address it by namespace (HTTP 409)
	CodeSandboxed        = "OSS5014" // a model source reads a file or setting outside the in-process engine's sandbox (HTTP 403)
)

// Governance codes (docs/governance.md). They sit in the 2xxx model range:
// governance is validated with the model it governs.
const (
	CodeBadPattern       = "OSS2016" // an access pattern is malformed, or (warning) matches no member
	CodeUnknownAttribute = "OSS2017" // a row filter names an undeclared caller attribute or writes {{ }} wrongly
	CodeBadMask          = "OSS2018" // mask parameters do not fit the mask kind
	CodeBadRowFilter     = "OSS2019" // a row filter aggregates or reads a field of another dataset
)

// Real-world model codes (docs/problems.md): shapes the Ossie spec allows
// that are read with a warning, and the few new ways they can be wrong.
const (
	CodeUnknownDialect    = "OSS1009" // warning: a dialect name this build does not know; the entry is kept, not executed
	CodeAmbiguousPaths    = "OSS2020" // warning: two or more many-to-one join paths between two datasets; a query must choose
	CodeMetricColumn      = "OSS2021" // warning: a metric reads a physical column that is not a declared field (checked at bind)
	CodeBadExtension      = "OSS2022" // an Ossie custom extension (vendor_name OSSIE) is malformed or names something unknown
	CodeVendorDialect     = "OSS3009" // warning: an expression given only in a vendor dialect is read as ANSI SQL
	CodeVendorNotPortable = "OSS3010" // an expression given only in a vendor dialect does not mean the same in ANSI SQL
	CodeAmbiguousJoin     = "OSS4011" // a query needs a dataset reached by several many-to-one paths and names none
	CodeNoMembersHome     = "OSS4012" // a dimension-only query whose members no one dataset reaches by many-to-one hops
	CodeBadVia            = "OSS4013" // a query's via names no relationship, or one on no path to the member
	CodeTwoRoles          = "OSS4014" // retired: two paths to one dataset are joined under one alias per path; no longer raised
	CodeBindingType       = "OSS5008" // a field's declared datatype disagrees with the column the engine stores (time zone)
)

// Glue drafting codes (ossiectl init --from glue; docs/authoring.md): why
// the Glue Data Catalog could not be read. OSS5067 exits 3, the others 1.
const (
	CodeGlueDenied      = "OSS5065" // Glue refused the credentials or a permission, or no credentials were found
	CodeGlueNotFound    = "OSS5066" // a named Glue database does not exist (or vanished), or no table matched
	CodeGlueUnreachable = "OSS5067" // the Glue endpoint did not answer
	CodeGlueFailed      = "OSS5068" // Glue answered with another error, or the AWS configuration is unusable
)
