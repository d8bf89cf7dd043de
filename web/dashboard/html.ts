// Templates without a JSX step: htm turns tagged template literals into Preact elements at run time (~0.7 KB).
export { html } from 'htm/preact';
