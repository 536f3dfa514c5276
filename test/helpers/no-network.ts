import nock from 'nock';
import { afterEach } from 'vitest';

// Tests reach only servers they start themselves on the loopback address.
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

afterEach(() => {
  nock.cleanAll();
});
