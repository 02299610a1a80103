/** The dashboard's entry (docs/dashboard.md): its styles, the link handling, and the app rendered into #app. */
import { render } from 'preact';
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import { App } from './app.tsx';
import { installLinkHandling } from './router.ts';

installLinkHandling();
render(<App />, document.getElementById('app')!);
