# chatport container image: multi-stage, Node 24 LTS, non-root, tini as PID 1 so signals reach node.
# Build:  docker build -t chatport .
# Run:    docker run --rm chatport import /pipelines/x.yaml     (see README "Running under a scheduler")

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:24-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY pipelines ./pipelines
COPY fixtures ./fixtures
# The state directory and output live on a volume the scheduler mounts; /work is writable by the user.
RUN mkdir -p /work && chown node:node /work
WORKDIR /work
USER node
# tini forwards SIGTERM to node and reaps zombies; node (not npm) is the entry so it gets the signal.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli/main.js"]
CMD ["--help"]
