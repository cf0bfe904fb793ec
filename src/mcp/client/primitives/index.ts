/**
 * A remote server's prompts, resources, resource templates and completions, as
 * `RemoteTools` offers them besides the tools.
 */
export {
  type CompletionArgument,
  type CompletionContext,
  type PrimitivesConnection,
  RemotePrimitives,
} from './remote-primitives';
export { jsonBytes, MAX_LIST_PAGES, MAX_LISTING_BYTES } from './paging';
export { type ListOptions, type PrimitiveRequestOptions } from './request-options';
