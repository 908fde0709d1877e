import java.math.BigDecimal;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

import org.postgresql.PGStatement;

/**
 * JdbcProbe drives the PostgreSQL JDBC driver (pgjdbc) against the Ossie SQL
 * endpoint for server/pgwire/jdbc_test.go, which compares what it prints with
 * the HTTP API's answers and hand-written SQL.
 *
 * Input: one command a line on stdin, fields separated by tabs (no field holds
 * a tab or a newline):
 *   connect  URL USER PASSWORD     open the connection (the password is a token);
 *                                  USER "-": user and password from the URL alone
 *   metadata SCHEMA_PATTERN        DatabaseMetaData.getSchemas, getTables, getColumns
 *   query    SQL                   Statement.executeQuery
 *   prepared TIMES SQL PARAM...    one PreparedStatement executed TIMES times;
 *                                  PARAM is s:text (setString), i:int (setInt),
 *                                  d:yyyy-mm-dd (setDate), n:decimal (setBigDecimal)
 *   fetch    SIZE SQL              Statement.executeQuery with setFetchSize(SIZE) in a
 *                                  transaction: pgjdbc reads the rows SIZE at a time
 *                                  (Execute row limits, PortalSuspended)
 *   cancel   SQL DELAY_MS          Statement.cancel() from another thread after DELAY_MS
 * Output: one JSON object a line per command, or {"error":{"sqlstate":..,"message":..}}.
 * Values print as JSON: numbers as numbers (BigDecimal exactly), dates as
 * "yyyy-mm-dd", timestamps as ISO-8601 local date-times.
 */
public final class JdbcProbe {
    private static Connection conn;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            StringBuilder out = new StringBuilder();
            try {
                run(f, out);
            } catch (SQLException e) {
                out.setLength(0);
                out.append("{\"error\":{\"sqlstate\":").append(str(e.getSQLState()))
                   .append(",\"message\":").append(str(e.getMessage())).append("}}");
            }
            System.out.println(out);
            System.out.flush();
        }
        if (conn != null) {
            conn.close();
        }
    }

    private static void run(String[] f, StringBuilder out) throws Exception {
        if (conn == null && !f[0].equals("connect")) {
            throw new SQLException("not connected", "08003");
        }
        switch (f[0]) {
            case "connect": {
                if (conn != null) {
                    conn.close();
                }
                conn = null;
                Properties p = new Properties();
                if (!f[2].equals("-")) {
                    p.setProperty("user", f[2]);
                    p.setProperty("password", f[3]);
                }
                conn = DriverManager.getConnection(f[1], p);
                DatabaseMetaData md = conn.getMetaData();
                out.append("{\"product\":").append(str(md.getDatabaseProductName()))
                   .append(",\"version\":").append(str(md.getDatabaseProductVersion()))
                   .append(",\"driver\":").append(str(md.getDriverVersion())).append("}");
                return;
            }
            case "metadata": {
                DatabaseMetaData md = conn.getMetaData();
                out.append("{\"schemas\":");
                try (ResultSet rs = md.getSchemas()) {
                    rows(rs, out, "TABLE_SCHEM");
                }
                out.append(",\"tables\":");
                try (ResultSet rs = md.getTables(null, f[1], "%", null)) {
                    rows(rs, out, "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS");
                }
                out.append(",\"columns\":");
                try (ResultSet rs = md.getColumns(null, f[1], "%", "%")) {
                    rows(rs, out, "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "REMARKS", "ORDINAL_POSITION");
                }
                out.append("}");
                return;
            }
            case "query": {
                try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(f[1])) {
                    result(rs, out);
                }
                return;
            }
            case "prepared": {
                int times = Integer.parseInt(f[1]);
                try (PreparedStatement ps = conn.prepareStatement(f[2])) {
                    for (int i = 3; i < f.length; i++) {
                        String v = f[i].substring(2);
                        switch (f[i].charAt(0)) {
                            case 's': ps.setString(i - 2, v); break;
                            case 'i': ps.setInt(i - 2, Integer.parseInt(v)); break;
                            case 'l': ps.setLong(i - 2, Long.parseLong(v)); break;
                            case 'd': ps.setDate(i - 2, java.sql.Date.valueOf(v)); break;
                            case 'n': ps.setBigDecimal(i - 2, new BigDecimal(v)); break;
                            default: throw new IllegalArgumentException("parameter " + f[i]);
                        }
                    }
                    out.append("{\"runs\":[");
                    for (int r = 0; r < times; r++) {
                        if (r > 0) {
                            out.append(",");
                        }
                        try (ResultSet rs = ps.executeQuery()) {
                            // isUseServerPrepare: pgjdbc uses a named server-side
                            // statement from the prepareThreshold-th execution on.
                            out.append("{\"server_prepared\":").append(ps.unwrap(PGStatement.class).isUseServerPrepare())
                               .append(",\"answer\":");
                            result(rs, out);
                            out.append("}");
                        }
                    }
                    out.append("]}");
                }
                return;
            }
            case "fetch": {
                conn.setAutoCommit(false);
                try (Statement st = conn.createStatement()) {
                    st.setFetchSize(Integer.parseInt(f[1]));
                    try (ResultSet rs = st.executeQuery(f[2])) {
                        result(rs, out);
                    }
                } finally {
                    conn.commit();
                    conn.setAutoCommit(true);
                }
                return;
            }
            case "cancel": {
                long delay = Long.parseLong(f[2]);
                try (Statement st = conn.createStatement()) {
                    AtomicReference<Exception> failed = new AtomicReference<>();
                    Thread canceller = new Thread(() -> {
                        try {
                            Thread.sleep(delay);
                            st.cancel();
                        } catch (Exception e) {
                            failed.set(e);
                        }
                    });
                    long start = System.nanoTime();
                    canceller.start();
                    String state = null;
                    String message = null;
                    try (ResultSet rs = st.executeQuery(f[1])) {
                        while (rs.next()) {
                            // read to the end: the query was not cancelled
                        }
                    } catch (SQLException e) {
                        state = e.getSQLState();
                        message = e.getMessage();
                    }
                    long millis = (System.nanoTime() - start) / 1_000_000;
                    canceller.join();
                    if (failed.get() != null) {
                        throw new SQLException("cancel failed: " + failed.get(), "XX000");
                    }
                    out.append("{\"sqlstate\":").append(str(state)).append(",\"message\":").append(str(message))
                       .append(",\"millis\":").append(millis).append("}");
                }
                return;
            }
            default:
                throw new IllegalArgumentException("unknown command " + f[0]);
        }
    }

    /** result prints {"columns":[{name,type,type_name,class}],"rows":[[...]]}. */
    private static void result(ResultSet rs, StringBuilder out) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        out.append("{\"columns\":[");
        for (int i = 1; i <= md.getColumnCount(); i++) {
            if (i > 1) {
                out.append(",");
            }
            out.append("{\"name\":").append(str(md.getColumnLabel(i)))
               .append(",\"type\":").append(md.getColumnType(i))
               .append(",\"type_name\":").append(str(md.getColumnTypeName(i)))
               .append(",\"class\":").append(str(md.getColumnClassName(i))).append("}");
        }
        out.append("],\"rows\":");
        rows(rs, out, (String[]) null);
        out.append("}");
    }

    /**
     * rows prints the named columns of every row (null: all, by position) as
     * a JSON array of arrays.
     */
    private static void rows(ResultSet rs, StringBuilder out, String... cols) throws SQLException {
        int n = cols == null ? rs.getMetaData().getColumnCount() : cols.length;
        out.append("[");
        boolean first = true;
        while (rs.next()) {
            out.append(first ? "[" : ",[");
            first = false;
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    out.append(",");
                }
                value(cols == null ? rs.getObject(i + 1) : rs.getObject(cols[i]), out);
            }
            out.append("]");
        }
        out.append("]");
    }

    private static void value(Object v, StringBuilder out) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof BigDecimal) {
            out.append(((BigDecimal) v).toPlainString());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            out.append(Double.isFinite(d) ? Double.toString(d) : str(Double.toString(d)));
        } else if (v instanceof Number || v instanceof Boolean) {
            out.append(v);
        } else if (v instanceof java.sql.Timestamp) {
            out.append(str(((java.sql.Timestamp) v).toLocalDateTime().toString()));
        } else {
            out.append(str(v.toString())); // java.sql.Date prints yyyy-mm-dd
        }
    }

    private static String str(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }
}
