# Sourced by the install scripts that fetch Java artifacts listed in a POM
# (scripts/iceberg-rest.sh, scripts/pgjdbc.sh); defines one function.
#
# mvn_copy_dependencies POM DEST [MVN ARGS...]: copies the runtime
# dependencies of POM (through ~/.m2) into DEST, replacing it only once
# the copy is complete; on failure prints Maven's first errors to stderr
# and exits 1. Uses $MVN (default mvn).
mvn_copy_dependencies() {
	local pom=$1 dest=$2
	shift 2
	rm -rf "$dest" "$dest.new"
	mkdir -p "$(dirname "$dest")"
	if ! "${MVN:-mvn}" -B -q -f "$pom" "$@" dependency:copy-dependencies \
		-DincludeScope=runtime -DoutputDirectory="$dest.new" >"$dest.mvn.log" 2>&1; then
		printf '%s: mvn dependency:copy-dependencies failed:\n' "$(basename "$0" .sh)" >&2
		grep -E 'ERROR' "$dest.mvn.log" | head -5 >&2
		exit 1
	fi
	mv "$dest.new" "$dest"
	rm -f "$dest.mvn.log"
}
