//go:build duckdb_arrow

package duckdb

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Arrow extension keys and names (Arrow format, "Extension Types"; DuckDB
// docs, "Arrow Extension"). arrow-go leaves an unregistered extension as
// its storage type with these keys in the field's metadata.
const (
	extensionName     = "ARROW:extension:name"
	extensionMetadata = "ARROW:extension:metadata"
)

// duckTypeName returns the DuckDB type name the driver's row path gives a
// column of Arrow field f (as the driver's ColumnTypeDatabaseTypeName
// spells it: "DECIMAL(18,2)", "TIMESTAMPTZ"), for the types read
// through Arrow (arrowvalues.go); ok is false for any other, or for an
// Arrow form DuckDB does not give under losslessArrow (large_utf8 under
// arrow_large_buffer_size, for instance).
func duckTypeName(f arrow.Field) (string, bool) {
	dt := f.Type
	ext, meta := "", ""
	if e, isExt := dt.(arrow.ExtensionType); isExt {
		ext, meta, dt = e.ExtensionName(), e.Serialize(), e.StorageType()
	} else if f.HasMetadata() {
		ext, _ = metadataValue(f.Metadata, extensionName)
		meta, _ = metadataValue(f.Metadata, extensionMetadata)
	}
	if ext != "" {
		return extensionTypeName(ext, meta, dt)
	}
	if name, ok := plainTypeNames[dt.ID()]; ok {
		return name, true
	}
	if name, nested, ok := nestedTypeName(dt); nested {
		return name, ok
	}
	switch t := dt.(type) {
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), true
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return "TIMESTAMPTZ", t.Unit == arrow.Microsecond
		}
		return timestampTypeNames[t.Unit], true
	case *arrow.Time64Type:
		return "TIME", t.Unit == arrow.Microsecond
	case *arrow.DictionaryType:
		return "ENUM", t.ValueType.ID() == arrow.STRING
	}
	return "", false
}

// extensionTypeName is duckTypeName of a column DuckDB exports as the
// extension ext (metadata meta) over the storage type storage.
func extensionTypeName(ext, meta string, storage arrow.DataType) (string, bool) {
	f, ok := storage.(*arrow.FixedSizeBinaryType)
	fixed16 := ok && f.ByteWidth == 16
	switch ext {
	case "arrow.bool8":
		return "BOOLEAN", storage.ID() == arrow.INT8
	case "arrow.uuid":
		return "UUID", fixed16
	case "arrow.json":
		return "JSON", storage.ID() == arrow.STRING
	case "arrow.opaque":
		var m struct {
			TypeName   string `json:"type_name"`
			VendorName string `json:"vendor_name"`
		}
		if json.Unmarshal([]byte(meta), &m) != nil || m.VendorName != "DuckDB" {
			return "", false
		}
		switch m.TypeName {
		case "hugeint":
			return "HUGEINT", fixed16
		case "uhugeint":
			return "UHUGEINT", fixed16
		}
	}
	return "", false
}

func metadataValue(md arrow.Metadata, key string) (string, bool) {
	if i := md.FindKey(key); i >= 0 {
		return md.Values()[i], true
	}
	return "", false
}

// plainTypeNames are the DuckDB types of one Arrow type each.
var plainTypeNames = map[arrow.Type]string{
	arrow.BOOL:                    "BOOLEAN",
	arrow.INT8:                    "TINYINT",
	arrow.INT16:                   "SMALLINT",
	arrow.INT32:                   "INTEGER",
	arrow.INT64:                   "BIGINT",
	arrow.UINT8:                   "UTINYINT",
	arrow.UINT16:                  "USMALLINT",
	arrow.UINT32:                  "UINTEGER",
	arrow.UINT64:                  "UBIGINT",
	arrow.FLOAT32:                 "FLOAT",
	arrow.FLOAT64:                 "DOUBLE",
	arrow.STRING:                  "VARCHAR",
	arrow.BINARY:                  "BLOB",
	arrow.DATE32:                  "DATE",
	arrow.INTERVAL_MONTH_DAY_NANO: "INTERVAL",
}

// timestampTypeNames are DuckDB's timestamps without a time zone, by unit.
var timestampTypeNames = map[arrow.TimeUnit]string{
	arrow.Second:      "TIMESTAMP_S",
	arrow.Millisecond: "TIMESTAMP_MS",
	arrow.Microsecond: "TIMESTAMP",
	arrow.Nanosecond:  "TIMESTAMP_NS",
}
