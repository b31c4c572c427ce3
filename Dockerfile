# Multi-stage build: a static binary on a distroless base, running as a non-root user,
# with its SQLite database (and the embedded sandbox's data) on the /data volume.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/portal ./cmd/portal \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/portal /portal
COPY --from=build --chown=nonroot:nonroot /out/data /data
ENV PORTAL_ADDR=0.0.0.0:8080 \
    PORTAL_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/portal"]
