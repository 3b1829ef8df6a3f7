// Kept in step with package.json by a test (bundling package.json would pull it into dist/).
export const VERSION = '0.1.0';
