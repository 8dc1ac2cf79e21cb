/** The largest request body any listener accepts (a 413 beyond it). */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
