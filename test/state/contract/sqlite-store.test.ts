/** The state port's contract, run against the SQLite adapter (src/state/state-store.ts). */
import { StateStore } from '../../../src/state/state-store.js';
import { makeStateTestDir } from '../state-test-dir.js';
import { storeContract } from './store-contract.js';

storeContract('SQLite', async ({ now }) => {
  const temp = makeStateTestDir();
  const store = StateStore.open(temp.statePath(), { job: 'crm', keyField: 'customerid', now });
  const close = store.close.bind(store);
  // The suite closes the store; the file goes with it.
  store.close = () => {
    try {
      close();
    } finally {
      temp.remove();
    }
  };
  return Promise.resolve(store);
});
