/**
 * Every test asserts something: a test whose loop over samples found none (a renamed tool, an empty
 * list) fails instead of passing on nothing.
 */
import { beforeEach, expect } from 'vitest';

beforeEach(() => {
  expect.hasAssertions();
});
