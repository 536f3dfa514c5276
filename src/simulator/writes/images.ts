import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import type { WireId } from '../ids.js';
import { ReplyError } from '../reply.js';
import { stringOr } from './envelope.js';
import { type ImageFile, readImageFile } from './image-file.js';

const CDN = 'https://cdn.shopify.com/s/files/1/0005/4838/0009/products';

/** An image's file as the request gives it: an http(s) `src` to download, or a base64 `attachment` (with `filename`). */
interface FileInput {
  name: string | null;
  file: ImageFile | undefined;
}

/** 422 unless the image names its file: an http(s) `src` or a base64 `attachment` (restore.md §1.2). */
function fileOf(input: JsonObject): FileInput {
  if (typeof input.attachment === 'string') {
    const file = readImageFile(input.attachment);
    if (file) return { name: stringOr(input.filename, null) ?? file.hashedName, file };
  } else if (
    typeof input.src === 'string' &&
    URL.canParse(input.src) &&
    /^https?:$/.test(new URL(input.src).protocol)
  ) {
    return { name: fileName(new URL(input.src).pathname.split('/').pop() ?? ''), file: undefined };
  }
  throw new ReplyError(ERRORS.validation({ image: ['Image URL is invalid'] }));
}

function fileName(segment: string): string | null {
  try {
    return decodeURIComponent(segment) || null;
  } catch {
    return segment || null;
  }
}

export function refuseWithoutFile(input: JsonObject): void {
  fileOf(input);
}

/**
 * Where Shopify serves an image from: it downloads `src` (or decodes `attachment`) and hosts the file on its CDN under
 * the original file name, so the served `src` is never the one sent. Its size comes from the file: an attachment's is
 * read; a `src` is never downloaded here, so its size stays 0.
 */
function hosted(input: JsonObject, imageId: WireId, nowMs: number): { src: string; width: number; height: number } {
  const { name, file } = fileOf(input);
  const path = encodeURIComponent(name ?? `${String(imageId)}.jpg`);
  return { src: `${CDN}/${path}?v=${Math.floor(nowMs / 1000)}`, width: file?.width ?? 0, height: file?.height ?? 0 };
}

export function newImage(
  input: JsonObject,
  ids: { id: WireId; productId: JsonValue },
  position: number,
  now: { text: string; ms: number },
): JsonObject {
  const file = hosted(input, ids.id, now.ms);
  return {
    id: ids.id,
    product_id: ids.productId,
    position,
    created_at: now.text,
    updated_at: now.text,
    alt: stringOr(input.alt, null),
    width: file.width,
    height: file.height,
    src: file.src,
    variant_ids: [],
    admin_graphql_api_id: `gid://shopify/ProductImage/${String(ids.id)}`,
  };
}

/** Images of a PUT in the order their `position`s ask for (EX22 product test_25), else as listed. */
export function byPosition(inputs: JsonObject[]): JsonObject[] {
  const wanted = (input: JsonObject, k: number) => (typeof input.position === 'number' ? input.position : k + 1);
  return inputs
    .map((input, k) => ({ input, at: wanted(input, k), k }))
    .sort((a, b) => a.at - b.at || a.k - b.k)
    .map(({ input }) => input);
}

/**
 * PUT products/{id}.json with `images`: the array is the product's whole set, `[]` clears it (EX22, REF20 example 4).
 * An image with an id is kept (alt updated, a new `src` or `attachment` replaces its file); one without is added;
 * images left out are deleted. An id that is not the product's refuses the request, as for variants.
 */
export function replaceImages(
  existing: JsonObject[],
  inputs: JsonObject[],
  create: (input: JsonObject, position: number) => JsonObject,
  now: { text: string; ms: number },
): JsonObject[] {
  const stale = inputs
    .filter((input) => input.id !== undefined && !existing.some((image) => String(image.id) === String(input.id)))
    .map((input) => String(input.id));
  if (stale.length > 0) {
    const message = `Images have not been changed. The following IDs do not exist or do not belong to the product: ${stale.join(', ')}`;
    throw new ReplyError(ERRORS.validation({ base: [message] }));
  }
  return inputs.map((input, k) => {
    const found = existing.find((image) => input.id !== undefined && String(image.id) === String(input.id));
    if (!found) return create(input, k + 1);
    const image = structuredClone(found);
    let changed = image.position !== k + 1;
    image.position = k + 1;
    if (input.alt !== undefined && input.alt !== image.alt) {
      image.alt = stringOr(input.alt, null);
      changed = true;
    }
    if (input.src !== undefined || input.attachment !== undefined) {
      Object.assign(image, hosted(input, image.id as WireId, now.ms));
      changed = true;
    }
    if (changed) image.updated_at = now.text;
    return image;
  });
}

/** 422 when a variant of the request names an image the product does not have (after its images were replaced). */
export function refuseUnknownImages(variantInputs: JsonObject[], images: JsonObject[]): void {
  const ids = new Set(images.map((image) => String(image.id)));
  for (const input of variantInputs) {
    if (input.image_id === undefined || input.image_id === null) continue;
    if (!ids.has(String(input.image_id))) throw new ReplyError(ERRORS.validation({ image_id: ['is invalid'] }));
  }
}

/**
 * Ties variants and images together after a create or update. `variant_ids` given on an image set those variants'
 * `image_id` (a variant shows one image); an `image_id` whose image is gone is cleared; each image's `variant_ids`
 * then lists the variants that show it.
 */
export function linkImages(variants: JsonObject[], images: JsonObject[], imageInputs: JsonObject[] | undefined): void {
  imageInputs?.forEach((input, k) => {
    if (!Array.isArray(input.variant_ids)) return;
    const image = images[k] as JsonObject;
    const wanted = new Set(input.variant_ids.map(String));
    for (const variant of variants) {
      if (wanted.has(String(variant.id))) variant.image_id = image.id as JsonValue;
      else if (String(variant.image_id) === String(image.id)) variant.image_id = null;
    }
  });
  const ids = new Set(images.map((image) => String(image.id)));
  for (const variant of variants) {
    if (variant.image_id !== null && !ids.has(String(variant.image_id))) variant.image_id = null;
  }
  for (const image of images) {
    image.variant_ids = variants.filter((v) => String(v.image_id) === String(image.id)).map((v) => v.id as JsonValue);
  }
}
