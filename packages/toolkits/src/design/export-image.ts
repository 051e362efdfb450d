/** Image export: node ids in the API's form, and a scale only where Figma applies one. */
import { callUpstream, toolError, type ToolHandler } from '@quiver/core';
import { binding } from './bindings.js';
import { normalizeNodeIds } from './node-ids.js';

export const exportImage: ToolHandler = async (args, context) => {
  const format = (args.image_format as string | undefined) ?? 'png';
  if (args.scale !== undefined && (format === 'svg' || format === 'pdf')) {
    return toolError(
      'TOOL_RUNTIME_BAD_INPUT_VALUE',
      `Invalid input for ExportImage: scale applies only to png and jpg exports; leave it out for ${format}, which is vector output.`,
    );
  }
  const normalized = normalizeNodeIds('ExportImage', 'node_ids', args.node_ids as string[]);
  if ('error' in normalized) return normalized;
  return callUpstream(binding('ExportImage'), { ...args, node_ids: normalized.ids }, context);
};
