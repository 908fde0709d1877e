# syntax=docker/dockerfile:1
#
# One image with the three binaries: /usr/local/bin/operator, server and
# ossiectl. They share the cgo dependencies (DuckDB, pg_query) that make up
# most of the build time and size, so one build, one scan and one tag serve
# the chart's two Deployments (each picks its binary with `command`), and
# ossiectl is there for `kubectl exec` debugging.
#
# Build:  docker build --build-arg VERSION=v0.1.0 -t ghcr.io/ossie-dev/ossie:0.1.0 .
# Check without Docker: make image-check (same flags; libc requirements
# against the runtime image's glibc, documented in docs/install.md).

# Builder and runtime are both Debian 12 (bookworm): the binaries need glibc
# >= 2.34 and libstdc++ GLIBCXX_3.4.30 (GCC 12), which bookworm provides
# (glibc 2.36, GCC 12.2). Keep the two in step when changing either.
ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${GO_IMAGE} AS build
WORKDIR /src
# duckdb_arrow: answers read from DuckDB as Arrow record batches (docs/development.md).
ENV CGO_ENABLED=1 GOFLAGS="-buildvcs=false -tags=duckdb_arrow"
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/root/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
# The flags are those of `make image-check` (IMAGE_LDFLAGS in the Makefile).
RUN --mount=type=cache,target=/root/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    set -eu; \
    ldflags="-s -w -X github.com/ossie-dev/ossie/internal/buildinfo.Version=${VERSION} -X github.com/ossie-dev/ossie/ossiectl.Version=${VERSION}"; \
    for b in operator server ossiectl; do \
      go build -trimpath -ldflags "$ldflags" -o /out/$b ./cmd/$b; \
      /out/$b --version >/dev/null 2>&1 || /out/$b version >/dev/null; \
    done

# distroless/cc: glibc, libgcc and libstdc++, no shell, no package manager;
# the :nonroot tag runs as uid/gid 65532 (the chart's runAsUser).
FROM ${RUNTIME_IMAGE}
COPY --from=build /out/operator /out/server /out/ossiectl /usr/local/bin/
USER 65532:65532
# DuckDB writes its extension and temporary files under HOME; the chart
# mounts an emptyDir at /tmp so the root filesystem can stay read-only.
ENV HOME=/tmp
EXPOSE 8080 8081
ENTRYPOINT ["/usr/local/bin/server"]
