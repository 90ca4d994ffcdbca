const home = process.env.HOME;
const example = '.env.example';
