// Package reference is the reference evaluator of the differential test:
// the documented query semantics (docs/query-semantics.md,
// docs/metrics.md, docs/governance.md, DESIGN.md section 5) computed
// naively in Go over in-memory rows, so that an answer of the product
// can be checked value by value against an independent one. It shares no
// code with compiler/plan or compiler/dialect: it has its own model
// (Model, a structured subset of an Ossie document), its own query type
// and its own arithmetic (exact rationals, converted to the answer's kind
// at the end).
//
// Evaluate(Input) answers a query body over dcase tables as a
// dcase.Result, or returns a *Refused with the documented problem code.
//
// Covered:
//   - datasets with primary keys; many-to-one relationships along the
//     unique tree path, LEFT JOIN semantics (an unmatched or NULL key is
//     the NULL member); one-to-many hops with exact dedup on the home
//     dataset's primary key (OSS4008 without one), a row reaching no row
//     through the hop in none of the groups behind it;
//   - measures aggregated at their home dataset, several homes stacked on
//     the dimensions (a member present in one home only is kept, counts
//     0 there, other aggregates NULL); SUM, COUNT, COUNT(*), COUNT
//     DISTINCT, AVG, MIN, MAX, each optionally filtered by a CASE
//     condition; derived and ratio metrics (real division, NULL on a zero
//     divisor);
//   - dimension filters (=, !=, in, not_in, gt, gte, lt, lte, between,
//     contains, starts_with, is_null, is_not_null, in_date_range with
//     date or timestamp ends) and metric filters; a query without
//     dimensions is one row; a query without metrics lists members
//     (of its through, the dimensions' own dataset or the linking fact;
//     OSS4012 when none or several, OSS4001 through with a metric);
//   - grains hour to year, week ISO or week_start sunday, the query time
//     zone for DateTimeTz instants and for naive DateTime values read in
//     their stored zone (field, dataset, model; UTC);
//   - every metric type: cumulative (all, to_date), rolling (whole
//     periods, and the day/hour values of a window that is not), period
//     over period (prior_period, prior_year × value, difference, ratio),
//     plain metrics over typed ones, typed over one windowed metric,
//     semi_additive (last, first, min, max), conversion (rate or count,
//     with or without a to_filter); OSS4060,
//     OSS4061, OSS4062, OSS4063;
//   - governance: roles, metric and field allow/deny, row filters (=, <>,
//     IN on a literal or a caller attribute, on the dataset's own fields
//     or those of a dataset it reaches many-to-one), several roles ORed,
//     masks null, literal, hash (MD5 of text) and partial, a metric over
//     a masked field hidden unless allow_aggregates;
//   - order_by on selected and unselected keys (NULLs last), the default
//     order by the selected dimensions, limit, offset, total.
//
// Not covered: field and metric expressions other than the forms of
// Expr (a field is one column), time fields at a filter grain, `via` and
// parallel paths (OSS4011), compare_date_range, relative date ranges,
// rollups (a rollup's answer is the base tables' by definition), hash and
// partial masks over values that are not text (their text is an engine
// cast), ungrained timestamp dimensions.
package reference
