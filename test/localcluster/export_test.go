package localcluster

// SetEnvtestLogger is setEnvtestLogger, for the external tests.
var SetEnvtestLogger = setEnvtestLogger
