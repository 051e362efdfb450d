export { startGithubEmulator, type GithubEmulator, type GithubEmulatorOptions, type SecondaryRateLimit } from './emulator.js';
export { GithubError, type GithubContext, type GithubRequest, type GithubResponse, type GithubUser, type Handler, type Repository } from './context.js';
