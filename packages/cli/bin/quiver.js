#!/usr/bin/env node
// The installed command. It exists before the build does, so npm can link it at install time.
import '../dist/bundle/main.js';
