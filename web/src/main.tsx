import { render } from 'preact'
import { App } from './app.js'
import { strings } from './strings/index.js'
import './styles.css'

document.documentElement.lang = strings.locale
render(<App />, document.getElementById('app')!)
