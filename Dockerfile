# One image for the three processes (api, worker, executor); glibc base because @temporalio/core-bridge has no musl build.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --loglevel=error
COPY . .
RUN npx tsc -p tsconfig.json --outDir dist \
 && node -e "require('@temporalio/worker').bundleWorkflowCode({workflowsPath: require.resolve('./dist/workflows')}).then(({code}) => require('fs').writeFileSync('dist/workflow-bundle.js', code))"

FROM node:20-bookworm-slim
# bubblewrap: the executor's sandbox for test commands (executor/sandbox.ts); passt (pasta) and
# iproute2 (ip, for the rules that keep a run to public addresses): a network of their own for
# network-on runs (executor/sandbox-network.ts), which the executor refuses without either.
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates bubblewrap passt iproute2 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund --loglevel=error
COPY --from=build /app/dist ./dist
# The compiled migration runner looks for migrations/ next to dist/'s top level (MIGRATIONS_DIR is
# relative to the module), so they go inside dist/.
COPY migrations ./dist/migrations
# The dashboard's templates and stylesheet are read next to the compiled routes (api/dashboard/routes).
COPY api/dashboard/templates ./dist/api/dashboard/templates
COPY api/dashboard/static ./dist/api/dashboard/static
# The compose file mounts named volumes here. A new named volume takes the ownership of the folder it
# is mounted on, so the folders must exist and belong to `node`; otherwise Docker creates them as root
# and the worker cannot write its repositories or checkouts.
RUN mkdir -p /var/lib/railyard/git /var/lib/railyard/work /var/lib/railyard/executor \
 && chown -R node:node /var/lib/railyard
USER node
EXPOSE 8080 9464 9465
CMD ["node", "dist/api/server.js"]
