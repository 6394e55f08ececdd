export { resolveLink, type LinkVariables } from './links.js';
export { iteratePages, iterateItems, type Page } from './paginate.js';
