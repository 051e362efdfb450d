import { defineToolkit } from '@quiver/core';
import { data } from './bindings.js';
import { addCommentOrReply, getComments } from './comments.js';
import { exportImage } from './export-image.js';
import { libraryList } from './library.js';
import { getFileNodes, getPages } from './nodes.js';

/** Figma REST API: files, nodes, comments, published library items, projects and image exports. */
export const design = defineToolkit(data, {
  AddCommentOrReply: addCommentOrReply,
  ExportImage: exportImage,
  GetComments: getComments,
  GetComponents: libraryList('GetComponents', 'components'),
  GetComponentSets: libraryList('GetComponentSets', 'component_sets'),
  GetStyles: libraryList('GetStyles', 'styles'),
  GetFileNodes: getFileNodes,
  GetPages: getPages,
});
