/** The dashboard's components: every page builds from these (docs/dashboard.md, "Components"). */
export { Button, ButtonLink, type ButtonKind } from './Button.tsx';
export { TextField } from './TextField.tsx';
export { Select } from './Select.tsx';
export { Dialog } from './Dialog.tsx';
export { TabLinks, Badge, type TabLink } from './Tabs.tsx';
export { Table, type Column } from './Table.tsx';
export { Notice } from './Notice.tsx';
export { EmptyState } from './EmptyState.tsx';
export { PageHeader } from './PageHeader.tsx';
export { Nav } from './Nav.tsx';
export { ErrorNotice } from './ErrorNotice.tsx';
// ConfirmDialog (./ConfirmDialog.tsx) is imported from its own file: only lazily loaded pages use it,
// and through this index it would join the first load's chunk.
