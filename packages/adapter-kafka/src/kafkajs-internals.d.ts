// kafkajs's per-connection request queue, patched by request-queue-fix.ts (no published types).
declare module 'kafkajs/src/network/requestQueue/index.js' {
  const RequestQueue: new (...args: never[]) => object;
  export default RequestQueue;
}
