package pgwire

import (
	"strings"
	"time"
)

// session holds the run-time settings of one connection. Only TimeZone
// changes answers (it is the query time zone of every plan.Query);
// the others are kept so SHOW and current_setting() read back what a
// client set, as BI drivers expect.
type session struct {
	settings map[string]string
	database string
}

// reportedSettings are sent as ParameterStatus at startup (the set a
// PostgreSQL 15 server reports, PostgreSQL section 55.2.6).
var reportedSettings = []string{"server_version", "server_encoding", "client_encoding", "application_name",
	"DateStyle", "IntervalStyle", "TimeZone", "integer_datetimes", "standard_conforming_strings",
	"is_superuser", "session_authorization", "in_hot_standby", "default_transaction_read_only"}

// defaults of the settings, by lower-cased name.
var defaultSettings = map[string]string{
	"server_version": ServerVersion, "server_version_num": "150000", "server_encoding": "UTF8", "client_encoding": "UTF8",
	"application_name": "", "datestyle": "ISO, MDY", "intervalstyle": "postgres", "timezone": "UTC",
	"integer_datetimes": "on", "standard_conforming_strings": "on", "is_superuser": "off",
	"session_authorization": "", "in_hot_standby": "off", "default_transaction_read_only": "on",
	"transaction_read_only": "on", "search_path": `"$user", public`, "extra_float_digits": "1",
	"max_identifier_length": "63", "lc_collate": "C", "lc_ctype": "C", "transaction_isolation": "read committed",
	"bytea_output": "hex", "statement_timeout": "0",
}

func newSession() session {
	s := session{settings: map[string]string{}}
	for k, v := range defaultSettings {
		s.settings[k] = v
	}
	return s
}

// get returns a setting ("" when unknown).
func (s *session) get(name string) string { return s.settings[strings.ToLower(name)] }

func (s *session) known(name string) bool {
	_, ok := s.settings[strings.ToLower(name)]
	return ok
}

// set changes a setting. TimeZone must be an IANA zone (or UTC/GMT);
// client_encoding must be UTF8, the only encoding answers are in;
// server_version and the other read-only ones cannot change.
func (s *session) set(name, value string) error {
	k := strings.ToLower(name)
	switch k {
	case "timezone", "time zone":
		z := strings.Trim(value, "'")
		if strings.EqualFold(z, "utc") || strings.EqualFold(z, "gmt") || strings.EqualFold(z, "z") || z == "" || strings.EqualFold(z, "local") || strings.EqualFold(z, "default") {
			z = "UTC"
		} else if _, err := time.LoadLocation(z); err != nil {
			return &sqlError{Code: codeInvalidParam, Message: "invalid value for parameter \"TimeZone\": \"" + value + "\"", Hint: "use an IANA time zone name such as Europe/Paris"}
		}
		s.settings["timezone"] = z
		return nil
	case "client_encoding":
		v := strings.ToUpper(strings.ReplaceAll(strings.Trim(value, "'"), "-", ""))
		if v != "UTF8" && v != "UNICODE" {
			return &sqlError{Code: codeFeature, Message: "not supported by the Ossie SQL endpoint: client_encoding " + value + "; answers are UTF8"}
		}
		return nil
	case "server_version", "server_version_num", "server_encoding", "integer_datetimes", "is_superuser", "in_hot_standby",
		"lc_collate", "lc_ctype", "max_identifier_length":
		return &sqlError{Code: "55P02", Message: "parameter \"" + name + "\" cannot be changed"}
	}
	s.settings[k] = value
	return nil
}

// zone is the query time zone ("" for UTC, the plan.Query default).
func (s *session) zone() string {
	if z := s.settings["timezone"]; z != "UTC" {
		return z
	}
	return ""
}

// database is the database name the client connected to ("ossie" when
// it named none); every model is reachable from any database name.
func (c *conn) database() string {
	if c.sess.database != "" {
		return c.sess.database
	}
	return "ossie"
}
