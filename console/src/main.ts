import './styles.css';
import './app';
