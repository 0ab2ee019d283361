# syntax=docker/dockerfile:1
# One image per service, one target each:
#   docker build --target gateway -t a2a-inbound/gateway .   (tasks, runner, webhooks, linker likewise)
# The build stage bundles every service (esbuild) and packs each one's bundle with exactly the production
# packages it loads (scripts/pack-service.mjs); the final stages hold that, Node and nothing else: no npm, no
# compiler, no sources. test/deploy/bundle-in-empty-dir.test.ts starts what a stage copies, from an empty
# directory, with only `node` and the environment. Runs as the image's `node` user (uid 1000) on a read-only
# root filesystem (writes go to /tmp, an emptyDir in deploy/k8s).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund \
 && node scripts/build.mjs \
 && for s in gateway tasks runner webhooks linker; do node scripts/pack-service.mjs "$s" "/out/$s"; done

FROM ${NODE_IMAGE} AS runtime
# tini as PID 1 forwards SIGTERM to Node (whose handlers drain and exit 0) and reaps children (the linker runs
# git). npm and corepack are removed: nothing installs at run time.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
    /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
ENV NODE_ENV=production
WORKDIR /app
USER node
STOPSIGNAL SIGTERM
# GET /metrics (OpenTelemetry, Prometheus format) when METRICS_PORT=9464 is set, as deploy/k8s does.
EXPOSE 9464
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--enable-source-maps"]

FROM runtime AS gateway
COPY --from=build --chown=root:root /out/gateway /app
# The gateway listens on loopback unless told otherwise; in a container, every interface is the point.
ENV HOST=0.0.0.0
EXPOSE 8080
CMD ["services/gateway/dist/main.js"]

FROM runtime AS tasks
COPY --from=build --chown=root:root /out/tasks /app
EXPOSE 50051
CMD ["services/tasks/dist/main.js"]

FROM runtime AS runner
COPY --from=build --chown=root:root /out/runner /app
EXPOSE 50052
CMD ["services/runner/dist/main.js"]

FROM runtime AS webhooks
COPY --from=build --chown=root:root /out/webhooks /app
EXPOSE 50053
CMD ["services/webhooks/dist/main.js"]

FROM runtime AS linker
# The linker ingests git repositories: git and CA certificates are run-time needs, not build tools (archives are
# unpacked in process).
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
USER node
COPY --from=build --chown=root:root /out/linker /app
EXPOSE 50055
CMD ["services/linker/dist/main.js"]
