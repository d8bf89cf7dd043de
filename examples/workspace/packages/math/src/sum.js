// Adds up a list of numbers. (Deliberately broken for the demo: it skips the first number.)
export function sum(numbers) {
  let total = 0;
  for (let i = 1; i < numbers.length; i++) total += numbers[i];
  return total;
}
