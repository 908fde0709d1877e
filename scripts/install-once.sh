# Sourced by the install scripts (not run): once_per_version makes an
# install idempotent and safe to start twice at once.
#
# The caller sets $dest (the install directory, one per version) and
# defines complete (true when $dest holds a finished install of what is
# wanted). once_per_version prints $dest and exits 0 when complete holds;
# otherwise it takes $dest/.lock on file descriptor 9, held until the
# script exits, so two test runs starting at once never install into the
# same place, and exits the same way if the other run finished meanwhile.
# When it returns, the caller installs.
once_per_version() {
	if complete; then
		echo "$dest"
		exit 0
	fi
	mkdir -p "$dest"
	exec 9>"$dest/.lock"
	flock 9
	if complete; then
		echo "$dest"
		exit 0
	fi
}
