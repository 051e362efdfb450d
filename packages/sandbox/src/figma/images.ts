/**
 * Image exports: each rendered node gets a temporary URL on the image host, valid for 14 days (spec part
 * 8) on the emulator's clock. A node that does not exist, or has no bounds to render (a page, the
 * document), maps to null, as in Figma.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, type Handler } from './context.js';
import { fileOf, nodeIdsOf } from './files.js';
import type { ImageFormat, Rgb } from './render.js';
import { colorOf, findNode } from './tree.js';

export const EXPORT_LIFETIME_MS = 14 * 86_400_000;
/** Larger renders are scaled down to this many pixels, as Figma does. */
const MAX_PIXELS = 32_000_000;

export const imageHandlers: Record<string, Handler> = {
  getImages: ({ params, query }, { db, clock, imagesUrl }) => {
    const file = fileOf(db, params.file_key!);
    const format = ((query.format as string | undefined) ?? 'png') as ImageFormat;
    const vector = format === 'svg' || format === 'pdf';
    if (vector && query.scale !== undefined) throw badRequest(`scale applies to png and jpg exports, not ${format}`);
    const scale = query.scale === undefined ? 1 : Number(query.scale);
    const insert = db.prepare('INSERT INTO exports (token, file_key, node_id, format, width, height, color, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const images = Object.fromEntries(
      nodeIdsOf(query.ids as string).map((id) => {
        const node = findNode(file.document, id);
        const box = node?.absoluteBoundingBox;
        if (!node || !box) return [id, null];
        let [width, height] = [box.width * scale, box.height * scale];
        const shrink = Math.min(1, Math.sqrt(MAX_PIXELS / (width * height)));
        [width, height] = [Math.max(1, Math.round(width * shrink)), Math.max(1, Math.round(height * shrink))];
        const { r, g, b } = colorOf(node);
        const color: Rgb = [r, g, b].map((c) => Math.round(c * 255)) as Rgb;
        const token = randomUUID();
        insert.run(token, file.key, id, format, width, height, JSON.stringify(color), clock.now() + EXPORT_LIFETIME_MS);
        return [id, `${imagesUrl}/images/${token}`];
      }),
    );
    return { status: 200, body: { err: null, images } };
  },
};
