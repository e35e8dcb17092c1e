/**
 * `@restatedev/restate-sdk` 1.17 calls `Promise.withResolvers` (Node 22+). The test machines run
 * Node 20, so the test worker adds it before loading the SDK; `@switchboard/restate` itself
 * declares Node 22 (its `engines`) and adds nothing to globals.
 */
const PromiseWithResolvers = Promise as unknown as {
  withResolvers?: <T>() => {
    promise: Promise<T>;
    resolve: (value: T) => void;
    reject: (reason: unknown) => void;
  };
};
PromiseWithResolvers.withResolvers ??= <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
};
export {};
