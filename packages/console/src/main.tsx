import { render } from 'preact';
import { App, applyTheme, storedTheme } from './app.js';
import './style.css';

// Before the first render, so a dark theme chosen earlier never flashes light.
applyTheme(storedTheme());
render(<App />, document.getElementById('app')!);
