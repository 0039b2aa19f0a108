/** Test-web settings shared by the tests that crawl one. */

export { NO_FAULTS } from '../../src/web/presets.js';
