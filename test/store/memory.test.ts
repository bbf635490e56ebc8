import { MemoryStore } from "../../src/store/memory-store.js";
import { storeContract } from "./store-contract.js";
import { delegate, signal } from "./support/delegate.js";

storeContract(
  "memory",
  async () => {
    // Workers of one process share one store; a worker with a clock of its own sees the same data.
    const shared = new MemoryStore();
    return {
      open: async (options = {}) =>
        options.clock === undefined ? shared : shared.withClock(options.clock),
      dropping: async () => {
        // No connection to drop: the swap fails as a call that never reached the store would.
        const dropped = signal();
        const store = delegate(shared, {
          swapHead: async () => {
            dropped.resolve();
            throw new Error("connection reset");
          },
        });
        return { store, dropped: dropped.promise };
      },
      close: async () => undefined,
    };
  },
  { canLose: false },
);
