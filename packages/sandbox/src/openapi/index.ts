export {
  startOpenApiEmulator,
  problem,
  OpenApiRefusal,
  type OpenApiEmulator,
  type OpenApiEmulatorOptions,
  type OpenApiTools,
} from './emulator.js';
export { DEFAULT_CREDENTIAL, DEFAULT_BASIC_USER } from './security.js';
export { generate, type GenerateOptions } from './generate.js';
