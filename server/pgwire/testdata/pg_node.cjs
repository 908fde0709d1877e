// Drives the SQL endpoint with node-postgres (npm pg), as a Node.js
// dashboard backend would, and prints what it saw as one JSON document on
// stdout (server/pgwire/clients_node_test.go checks it against the HTTP
// API and hand-written SQL).
//
//   NODE_PATH=<node-pg install>/node_modules node pg_node.cjs HOST PORT AUDITOR_TOKEN ANALYST_TOKEN
//
// The token is the password; the user name is only shown back. int8 and
// numeric arrive as strings (node-postgres' default, no digit lost);
// dates are kept as their text (node-postgres would otherwise build a
// Date at local midnight).
'use strict'
const pg = require('pg')

const [host, port, auditor, analyst] = process.argv.slice(2)
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v)

const config = (token) => ({ host, port: Number(port), user: 'bi', password: token, database: 'ossie', ssl: false, connectionTimeoutMillis: 10000 })
const rows = (res) => res.rows

const BY_STATE = 'SELECT customers_state, MEASURE(revenue) FROM shop.shop GROUP BY 1 ORDER BY 2 DESC LIMIT 2'
const BY_MONTH = "SELECT DATE_TRUNC('month', orders_order_date) AS m, order_count, revenue FROM shop.shop GROUP BY 1 ORDER BY 1"
const PARAMS = 'SELECT customers_state, order_count, revenue FROM shop.shop ' +
  'WHERE orders_order_date BETWEEN $1 AND $2 AND customers_state IN ($3, $4) GROUP BY 1 ORDER BY 1 LIMIT $5'
const HAVING = 'SELECT customers_state, order_count FROM shop.shop GROUP BY 1 HAVING order_count > $1 ORDER BY 1'

async function main () {
  const out = { queries: {} }
  const q = out.queries
  const c = new pg.Client(config(auditor))
  await c.connect()
  // The catalog through pg_catalog, as a schema browser reads it.
  out.schemas = (await c.query({
    text: "SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1",
    rowMode: 'array'
  })).rows.map((r) => r[0])
  out.tables = rows(await c.query({
    text: "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'v') ORDER BY 1, 2",
    rowMode: 'array'
  }))
  out.columns = rows(await c.query({
    text: 'SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a ' +
      'JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ' +
      'WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum',
    values: ['shop', 'shop'],
    rowMode: 'array'
  }))

  // Without values node-postgres sends a simple query; with values,
  // Parse/Bind/Execute of the unnamed statement; with a name, a named
  // statement parsed once and bound again with other values.
  q.by_state = rows(await c.query({ text: BY_STATE, rowMode: 'array' }))
  q.by_month = rows(await c.query({ text: BY_MONTH, rowMode: 'array' }))
  q.params = rows(await c.query({ text: PARAMS, values: ['2024-01-01', '2024-02-11', 'CA', 'NY', 10], rowMode: 'array' }))
  q.prepared_1 = rows(await c.query({ name: 'having', text: HAVING, values: [1], rowMode: 'array' }))
  q.prepared_2 = rows(await c.query({ name: 'having', text: HAVING, values: [2], rowMode: 'array' }))

  // A slow query cancelled with a CancelRequest: node-postgres sends one
  // from a second, unconnected Client (new Client(cfg).cancel(running,
  // query), an API node-postgres has but does not document).
  const cancel = {}
  const start = Date.now()
  const slow = c.query(new pg.Query({ text: 'SELECT MEASURE(rows) FROM slow.slow', rowMode: 'array' }))
  const done = new Promise((resolve) => {
    slow.on('error', (err) => { cancel.sqlstate = err.code; cancel.message = err.message; resolve() })
    slow.on('end', () => { cancel.error = 'not cancelled'; resolve() })
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  new pg.Client(config(auditor)).cancel(c, slow)
  let timer
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), 30000) })
  cancel.alive = (await Promise.race([done.then(() => 'done'), timeout])) === 'done'
  clearTimeout(timer)
  cancel.seconds = (Date.now() - start) / 1000
  // The connection keeps serving after the cancel.
  cancel.after = rows(await c.query({ text: BY_STATE, rowMode: 'array' }))
  out.cancel = cancel
  await c.end()

  // The state analyst's role hides columns and filters rows.
  const g = new pg.Client(config(analyst))
  await g.connect()
  out.governed_columns = (await g.query({
    text: "SELECT column_name FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = 'shop' ORDER BY ordinal_position",
    rowMode: 'array'
  })).rows.map((r) => r[0])
  q.governed = rows(await g.query({ text: 'SELECT customers_state, order_count, revenue FROM shop.shop GROUP BY 1 ORDER BY 1', rowMode: 'array' }))
  try {
    await g.query('SELECT avg_amount FROM shop.shop')
    out.governed_hidden = 'answered'
  } catch (err) {
    out.governed_hidden = err.code
  }
  await g.end()
  process.stdout.write(JSON.stringify(out))
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack) + '\n')
  process.exit(1)
})
