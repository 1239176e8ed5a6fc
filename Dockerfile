# Reasonix as a headless worker: `reasonix run` in a container, the OS sandbox (bubblewrap)
# inside it. docs/FLEETS.md. Two stages: the build (the pinned toolchain, the wasm target the
# built-in components need) and a small runtime image running as an unprivileged user.
#
#   docker build -t reasonix .
#   docker run --rm -e DEEPSEEK_API_KEY -v "$PWD:/work" reasonix run "fix the failing test"

FROM rust:1.95.0-bookworm AS build
WORKDIR /src
RUN rustup target add wasm32-wasip2
COPY . .
RUN cargo build --release --locked -p reasonix \
    && install -D -m 0755 target/release/reasonix /out/reasonix

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap ca-certificates git \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 --shell /bin/bash reasonix \
    && mkdir -p /work /out \
    && chown reasonix:reasonix /work /out
COPY --from=build /out/reasonix /usr/local/bin/reasonix
USER 10001:10001
WORKDIR /work
ENV REASONIX_HOME=/home/reasonix/.reasonix
ENTRYPOINT ["reasonix"]
CMD ["--help"]
