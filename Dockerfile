# wasp in a container, for the nightly CronJob in deploy/ (doc/deploy.md).
#
#   docker build -t wasp:0.1.0 .
#
# Stage 1 builds wasp on Debian 12 with the packages of quickstart.sh;
# stage 2 takes kubectl from the Kubernetes project's own image; the
# final stage is Debian 12 slim with the runtime libraries only, running
# as an unprivileged user.
ARG KUBECTL_VERSION=v1.34.1

FROM debian:12-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential autoconf \
	automake libtool pkg-config libglpk-dev libyaml-dev libcjson-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN autoreconf -fi \
 && ./configure --prefix=/usr/local \
 && make -j"$(nproc)" \
 && make install-strip DESTDIR=/out

FROM registry.k8s.io/kubectl:${KUBECTL_VERSION} AS kubectl

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libglpk40 libyaml-0-2 \
	libcjson1 libgomp1 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 wasp \
 && useradd --uid 65532 --gid 65532 --home-dir /var/lib/wasp \
	--create-home --shell /usr/sbin/nologin wasp
COPY --from=build /out/usr/local/ /usr/local/
COPY --from=kubectl /bin/kubectl /usr/local/bin/kubectl
COPY deploy/nightly.sh /usr/local/bin/wasp-nightly
RUN ldconfig && wasp --version && kubectl version --client
USER 65532:65532
WORKDIR /var/lib/wasp
ENTRYPOINT ["wasp"]
CMD ["--help"]
